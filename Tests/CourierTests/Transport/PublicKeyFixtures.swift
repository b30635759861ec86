import Foundation
import Testing

@testable import Courier

/// Public keys made with OpenSSL 3.0 for the pinning tests: each key's external representation
/// as Apple's `SecKeyCopyExternalRepresentation` gives it, its `SubjectPublicKeyInfo` as
/// OpenSSL writes it, and its pin as the curl documentation's recipe prints it. Made by:
///
///     openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out k.key   # or EC, ec_paramgen_curve:P-256
///     openssl pkey -in k.key -pubout -outform der -out spki.der                 # subjectPublicKeyInfo
///     openssl rsa -in k.key -RSAPublicKey_out -outform der -out raw              # RSA: PKCS #1
///     tail -c 65 spki.der > raw                                                  # EC: 04 ‖ X ‖ Y (97, 133)
///     openssl dgst -sha256 -binary spki.der | base64                             # pin
struct PublicKeyFixture: Sendable, CustomTestStringConvertible {
  let name: String
  let kind: SubjectPublicKeyInfo.Kind
  let raw: String
  let subjectPublicKeyInfo: String
  let pin: String

  var testDescription: String { name }

  static let all: [PublicKeyFixture] = [
    PublicKeyFixture(
      name: "rsa2048", kind: .rsa,
      raw:
        "MIIBCgKCAQEAnZ+NIFTSpMK9xq5K7PcKfOgKZrWKuXyqLxOdjK+y7IXB+tlX689vZwOw5xQkDLQ2wxFNP9L4"
        + "gtU+gng9dGiPc+SMyiVT1sfftxndCZE7eXewZgoUJ7K/fDBiE0IiTMTONToEsfN32XkeArtu6r+WYFIasFyN"
        + "JP8EX5+m6HRBYgJovA4j3mIrq52hjvzRvyM4nx3dnd0NmJRBW3yUlOaOpxmW/WLZiGrJmG+of5Q05vTD302w"
        + "Lv5+nlq5PY1lXzDrygbWQRwfoyTFRA5kfpAfxnx1399Cq3BELWjdRw5MrhFxCsFxkWh+khMIOeLg8ZJRtxwD"
        + "l4NHsSMuWig8yegsQwIDAQAB",
      subjectPublicKeyInfo:
        "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAnZ+NIFTSpMK9xq5K7PcKfOgKZrWKuXyqLxOdjK+y"
        + "7IXB+tlX689vZwOw5xQkDLQ2wxFNP9L4gtU+gng9dGiPc+SMyiVT1sfftxndCZE7eXewZgoUJ7K/fDBiE0Ii"
        + "TMTONToEsfN32XkeArtu6r+WYFIasFyNJP8EX5+m6HRBYgJovA4j3mIrq52hjvzRvyM4nx3dnd0NmJRBW3yU"
        + "lOaOpxmW/WLZiGrJmG+of5Q05vTD302wLv5+nlq5PY1lXzDrygbWQRwfoyTFRA5kfpAfxnx1399Cq3BELWjd"
        + "Rw5MrhFxCsFxkWh+khMIOeLg8ZJRtxwDl4NHsSMuWig8yegsQwIDAQAB",
      pin: "7wS1z62WIiI/RNldAcnztGK2Ro00qYq0bQoPcdOgxw4="),
    PublicKeyFixture(
      name: "rsa3072", kind: .rsa,
      raw:
        "MIIBigKCAYEAqAVEdgQFVqvfrZO57bxK66szKjvl9fLp1IfwwV4soAbLO5RPTCOaPNd+gcd2pmNbM+X3igwg"
        + "CukA5WDKXOTbCULdhtmxKqI63xf6bbNf8UFs0L/82em++jASMuCA1vXFajsA2t1+RT2731bFKU7w+bbq05Sg"
        + "g1qG28cY1ZCYf9ynLvqXz5k3xXJUgjzhqfNzAQ4PccbTcSnwMLA1yP/ctI5cXWjGcWhCXQbl40GpmCZ0gpQi"
        + "ru0E06FY6oqjRjfX7UnyDGUMh4r4F4tLxHTGBu/dPYMrWWwn0qioTLD4ivFBjBkQ8uqbpzM1c70eYpZfWZpg"
        + "xgWlkVUQlkGFMfzFZT34Ir/eeSWOxaUaMN10YTLNBL7Lo1osppV3b0fujAv6uBzqlJ3vbWZVQh9IoK51R0vo"
        + "rcd9IAT+zcPWGsiwF3rYULFvgvgGlRzL77pqsAs2G91gznD7mPmNzRtMyEohplhRbgxtlcjCvxEelxdyMmqM"
        + "jTo1x4thnv9uIdQ9X/FpAgMBAAE=",
      subjectPublicKeyInfo:
        "MIIBojANBgkqhkiG9w0BAQEFAAOCAY8AMIIBigKCAYEAqAVEdgQFVqvfrZO57bxK66szKjvl9fLp1IfwwV4s"
        + "oAbLO5RPTCOaPNd+gcd2pmNbM+X3igwgCukA5WDKXOTbCULdhtmxKqI63xf6bbNf8UFs0L/82em++jASMuCA"
        + "1vXFajsA2t1+RT2731bFKU7w+bbq05Sgg1qG28cY1ZCYf9ynLvqXz5k3xXJUgjzhqfNzAQ4PccbTcSnwMLA1"
        + "yP/ctI5cXWjGcWhCXQbl40GpmCZ0gpQiru0E06FY6oqjRjfX7UnyDGUMh4r4F4tLxHTGBu/dPYMrWWwn0qio"
        + "TLD4ivFBjBkQ8uqbpzM1c70eYpZfWZpgxgWlkVUQlkGFMfzFZT34Ir/eeSWOxaUaMN10YTLNBL7Lo1osppV3"
        + "b0fujAv6uBzqlJ3vbWZVQh9IoK51R0vorcd9IAT+zcPWGsiwF3rYULFvgvgGlRzL77pqsAs2G91gznD7mPmN"
        + "zRtMyEohplhRbgxtlcjCvxEelxdyMmqMjTo1x4thnv9uIdQ9X/FpAgMBAAE=",
      pin: "ZBCCwICXxo64Y3MFAbGSfOTPPFeKdXluV2OQ9gAzBxc="),
    PublicKeyFixture(
      name: "rsa4096", kind: .rsa,
      raw:
        "MIICCgKCAgEAwuKiFgi32DVvUMGQzJeRpD9w/1FO2yIrbruGCDpUexiCQ/8c7pU7djqySWB+mp0bxuuDo5lh"
        + "m7i4fxyDAuESHllaa9rgtV2w5Q4SW1k5mq2+ByorG951iBoCv5sM+3urJAnD/eSZDCDfksSsRDmTNyd1d2yl"
        + "V/atpk47rIF4NO4cXFFA2Ip0p40RN42DEAdzqRGynj6OS/FnAVUEMo+FvRpUU9P7Yz/dN43C7fGhmErIwFtU"
        + "fmJupd1gmOAaZaqwrW89P4/iurQ3HIPX/Yj062ZHiwZJuUeL6QKfBMcrtD1LavhEDEzOMG4uqZwAjzIdc/cN"
        + "D4r51bJXSkLXgruxKJshpyyNX1H9qURkYPU4vh2+koazY8lyE/byvVEKlcUbCWS9hoqgu0tmdnwxM2XT0tbP"
        + "VZKVExKYJXyQibjluNsEXXW3GZ6R0CMvU+dS4Twet/nGwVl08IHRoWVnJe2agUx1jxInGf27IERlcSSmjS75"
        + "cjTjIP8yuo7vVVOko3HhB0ccCZdy4lf3FIg6vMsaj7zYuwGRABbbQUm+2gkA5ETFM7JwTw+hUsMv49xlbBrv"
        + "nHql+raqJureIQZg5P/cXIDUVUOZkNA7iZrQSjW6ycQn4rp7TBr07zkR9oXzoOITdmqI1FUJZdcENVWCHJ2y"
        + "Ec5xrzT3du0G11EUphXhVlcCAwEAAQ==",
      subjectPublicKeyInfo:
        "MIICIjANBgkqhkiG9w0BAQEFAAOCAg8AMIICCgKCAgEAwuKiFgi32DVvUMGQzJeRpD9w/1FO2yIrbruGCDpU"
        + "exiCQ/8c7pU7djqySWB+mp0bxuuDo5lhm7i4fxyDAuESHllaa9rgtV2w5Q4SW1k5mq2+ByorG951iBoCv5sM"
        + "+3urJAnD/eSZDCDfksSsRDmTNyd1d2ylV/atpk47rIF4NO4cXFFA2Ip0p40RN42DEAdzqRGynj6OS/FnAVUE"
        + "Mo+FvRpUU9P7Yz/dN43C7fGhmErIwFtUfmJupd1gmOAaZaqwrW89P4/iurQ3HIPX/Yj062ZHiwZJuUeL6QKf"
        + "BMcrtD1LavhEDEzOMG4uqZwAjzIdc/cND4r51bJXSkLXgruxKJshpyyNX1H9qURkYPU4vh2+koazY8lyE/by"
        + "vVEKlcUbCWS9hoqgu0tmdnwxM2XT0tbPVZKVExKYJXyQibjluNsEXXW3GZ6R0CMvU+dS4Twet/nGwVl08IHR"
        + "oWVnJe2agUx1jxInGf27IERlcSSmjS75cjTjIP8yuo7vVVOko3HhB0ccCZdy4lf3FIg6vMsaj7zYuwGRABbb"
        + "QUm+2gkA5ETFM7JwTw+hUsMv49xlbBrvnHql+raqJureIQZg5P/cXIDUVUOZkNA7iZrQSjW6ycQn4rp7TBr0"
        + "7zkR9oXzoOITdmqI1FUJZdcENVWCHJ2yEc5xrzT3du0G11EUphXhVlcCAwEAAQ==",
      pin: "ldmUAmlANJiFQ8u9PVM7srVZER9N46mX7g4tlrk8984="),
    PublicKeyFixture(
      name: "p256", kind: .ellipticCurve,
      raw:
        "BKAhsp5l4XOdBk1a54eUuT+4emM5pD4qXUeUMAYovCbxuxr1jK1EFRr4zcIvKo6XKVhY5yPjn7gaimCSutCH"
        + "Fk4=",
      subjectPublicKeyInfo:
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEoCGynmXhc50GTVrnh5S5P7h6YzmkPipdR5QwBii8JvG7GvWM"
        + "rUQVGvjNwi8qjpcpWFjnI+OfuBqKYJK60IcWTg==",
      pin: "fBDRNpfDLjCdDp2rBuw4/eph+DhyEaOWHQnOiSvtH0U="),
    PublicKeyFixture(
      name: "p384", kind: .ellipticCurve,
      raw:
        "BL1XrodLo3Fd9+Bkki3v14+UCg9pIKokfOMp2n+GaM9IaKSQ65BmzFc7huEvfI8RCfmTrff11Yg6c1KeGFHa"
        + "zTPsAXALcmhsSLtdg4WwwjIsN15IKYXL6j6YuJBrFNeo+Q==",
      subjectPublicKeyInfo:
        "MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAEvVeuh0ujcV334GSSLe/Xj5QKD2kgqiR84ynaf4Zoz0hopJDrkGbM"
        + "VzuG4S98jxEJ+ZOt9/XViDpzUp4YUdrNM+wBcAtyaGxIu12DhbDCMiw3XkgphcvqPpi4kGsU16j5",
      pin: "UtT+ZFZ3KHY/r+RmYWjpAe4zWAHvY3xb6x5WjiqKnHI="),
    PublicKeyFixture(
      name: "p521", kind: .ellipticCurve,
      raw:
        "BAGvcqcbCaDgkMw8CU5Ib42iKnCffaGdrkrZw/vLjZQhtH421tJJudt6O+SbyXYmdCG64MCCamuN2u8u7zhO"
        + "ej4YmwGpIWLEyiS7VNBJO7P+i/pQ75hJNYEQyhhSoQq+HVUiUA2g4wuXOob3VsmHeKqLqVGaY+QDWIWkx3LF"
        + "qv5MQhjQZA==",
      subjectPublicKeyInfo:
        "MIGbMBAGByqGSM49AgEGBSuBBAAjA4GGAAQBr3KnGwmg4JDMPAlOSG+Noipwn32hna5K2cP7y42UIbR+NtbS"
        + "Sbnbejvkm8l2JnQhuuDAgmprjdrvLu84Tno+GJsBqSFixMoku1TQSTuz/ov6UO+YSTWBEMoYUqEKvh1VIlAN"
        + "oOMLlzqG91bJh3iqi6lRmmPkA1iFpMdyxar+TEIY0GQ=",
      pin: "XoF/cHJ6IgSBy1a/jlEehgOttnjSnLMIwgYOKZJc6Bs="),
  ]
}

#if canImport(FoundationNetworking)
  import Foundation

  extension TestCertificates {
    /// An authority (`ca.pem`) and server certificates it signed that a check refuses for one
    /// reason each, every one with its key (`name.key`): `expired.pem` (valid in January
    /// 2020) and `future.pem` (valid from 2099), both for `IP:127.0.0.1`; `named.pem`, for
    /// `DNS:localhost` only; and `leaf.pem`, for `IP:127.0.0.1`, signed by an intermediate
    /// authority (`intermediate.pem`) that the server must send along.
    static var validity: TestCertificates {
      get async throws { try await madeValidity.value }
    }

    private static let madeValidity = Task {
      try await make(
        """
        key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; } &&
        key ca.key && openssl req -x509 -new -key ca.key -out ca.pem -days 2 \
          -subj /CN=courier-validity-ca -addext basicConstraints=critical,CA:TRUE \
          -addext keyUsage=critical,keyCertSign,cRLSign &&
        mkdir db && : > db/index && echo 1000 > db/serial &&
        printf '%s\\n' '[ca]' 'default_ca = d' '[d]' 'database = db/index' \
          'serial = db/serial' 'new_certs_dir = db' 'default_md = sha256' 'policy = p' \
          'unique_subject = no' 'copy_extensions = copy' '[p]' 'commonName = supplied' > ca.cnf &&
        now=$(date -u -d '-1 hour' +%Y%m%d%H%M%SZ) &&
        later=$(date -u -d '+1 day' +%Y%m%d%H%M%SZ) &&
        sign() {
          key "$1.key" &&
          openssl req -new -key "$1.key" -subj "/CN=$1" -addext "subjectAltName=$4" \
            $6 -out "$1.csr" &&
          openssl ca -batch -config ca.cnf -cert "$5.pem" -keyfile "$5.key" \
            -startdate "$2" -enddate "$3" -in "$1.csr" -out "$1.pem" -notext
        } &&
        sign expired 20200101000000Z 20200102000000Z IP:127.0.0.1 ca &&
        sign future 20990101000000Z 20990102000000Z IP:127.0.0.1 ca &&
        sign named "$now" "$later" DNS:localhost ca &&
        sign intermediate "$now" "$later" DNS:intermediate ca \
          "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign" &&
        sign leaf "$now" "$later" IP:127.0.0.1 intermediate
        """,
        files: [
          "ca.pem", "expired.pem", "expired.key", "future.pem", "future.key", "named.pem",
          "named.key", "intermediate.pem", "leaf.pem", "leaf.key",
        ], pinning: [])
    }
  }
#endif

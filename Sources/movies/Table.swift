/// A plain-text table with aligned columns, for a terminal.
///
/// ```swift
/// var table = Table(columns: [.init("#", .right), .init("Title", maxWidth: 30)])
/// table.append(["1", "Moonlight Harbor"])
/// print(table.render())
/// ```
struct Table {
  /// How a column lines up its cells.
  enum Alignment {
    /// Padded on the right.
    case left
    /// Padded on the left, for numbers.
    case right
  }

  /// A column's header and layout.
  struct Column {
    /// The header text.
    var title: String
    /// How the cells line up.
    var alignment: Alignment
    /// The widest a cell may be; longer text is cut with `…`.
    var maxWidth: Int?

    /// Creates a column.
    init(_ title: String, _ alignment: Alignment = .left, maxWidth: Int? = nil) {
      self.title = title
      self.alignment = alignment
      self.maxWidth = maxWidth
    }
  }

  /// The columns, left to right.
  var columns: [Column]
  /// The rows, one cell per column.
  private(set) var rows: [[String]] = []

  /// Creates an empty table.
  init(columns: [Column]) {
    self.columns = columns
  }

  /// Appends a row; missing cells are empty, extra cells are ignored.
  mutating func append(_ row: [String]) {
    rows.append(columns.indices.map { $0 < row.count ? row[$0] : "" })
  }

  /// The table as lines: a header, a rule, and the rows. Columns are separated by two
  /// spaces, and no line has trailing spaces.
  func render() -> String {
    let cells = rows.map { row in
      zip(columns, row).map { column, cell in Self.cut(cell, to: column.maxWidth) }
    }
    let widths = columns.indices.map { index in
      cells.reduce(columns[index].title.count) { max($0, $1[index].count) }
    }
    var lines = [line(columns.map(\.title), widths: widths)]
    lines.append(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
    lines += cells.map { line($0, widths: widths) }
    return lines.joined(separator: "\n")
  }

  private func line(_ cells: [String], widths: [Int]) -> String {
    let padded = zip(columns, zip(cells, widths)).map { column, cellAndWidth in
      let (cell, width) = cellAndWidth
      let padding = String(repeating: " ", count: width - cell.count)
      return column.alignment == .left ? cell + padding : padding + cell
    }
    var text = padded.joined(separator: "  ")
    while text.hasSuffix(" ") { text.removeLast() }
    return text
  }

  private static func cut(_ text: String, to maxWidth: Int?) -> String {
    guard let maxWidth, text.count > maxWidth, maxWidth > 1 else { return text }
    return text.prefix(maxWidth - 1) + "…"
  }
}

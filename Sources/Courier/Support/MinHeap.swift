/// A binary min-heap: `first` is the least element by `areInOrder`.
struct MinHeap<Element: Sendable>: Sendable {
  private(set) var elements: [Element] = []
  let areInOrder: @Sendable (Element, Element) -> Bool

  init(by areInOrder: @escaping @Sendable (Element, Element) -> Bool) {
    self.areInOrder = areInOrder
  }

  init(_ elements: [Element], by areInOrder: @escaping @Sendable (Element, Element) -> Bool) {
    self.areInOrder = areInOrder
    self.elements = elements
    for index in stride(from: elements.count / 2 - 1, through: 0, by: -1) {
      siftDown(from: index)
    }
  }

  var count: Int { elements.count }

  var first: Element? { elements.first }

  mutating func push(_ element: Element) {
    elements.append(element)
    var child = elements.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard areInOrder(elements[child], elements[parent]) else { break }
      elements.swapAt(child, parent)
      child = parent
    }
  }

  @discardableResult
  mutating func pop() -> Element? {
    guard !elements.isEmpty else { return nil }
    elements.swapAt(0, elements.count - 1)
    let least = elements.removeLast()
    siftDown(from: 0)
    return least
  }

  private mutating func siftDown(from start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var least = parent
      if left < elements.count && areInOrder(elements[left], elements[least]) { least = left }
      if right < elements.count && areInOrder(elements[right], elements[least]) { least = right }
      guard least != parent else { return }
      elements.swapAt(parent, least)
      parent = least
    }
  }
}

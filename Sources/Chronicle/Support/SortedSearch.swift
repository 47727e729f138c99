extension RandomAccessCollection where Element: Comparable, Index == Int {
    /// The first position whose element is not less than `element`, in a
    /// sorted collection. O(log n).
    func insertionPoint(of element: Element) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < element { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first position whose element is greater than `element`, in a
    /// sorted collection: where a new equal element goes after its equals. O(log n).
    func insertionPoint(after element: Element) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = (low + high) / 2
            if element < self[middle] { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension Collection {
    /// The index of the first element for which `belongs` is true, given that
    /// the elements for which it is true form a suffix. O(log n).
    func partitionPoint(where belongs: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if belongs(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}

extension RandomAccessCollection {
    /// The first index whose element satisfies `belongs`, for a collection in which every
    /// element that satisfies it comes after every one that does not (a binary search).
    func partitioningIndex(where belongs: (Element) -> Bool) -> Index {
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

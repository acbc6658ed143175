package recording

// SameTimeRank is the place of an event of kind k among the events of one
// token that carry the same time (docs/data-format.md#time): metadata
// first (terms, tick changes and resolutions apply from their time on),
// then trades, then books. A book stamped t shows the book after the
// trades stamped t: were it replayed first, the fill model would see the
// traded size leave the level once as an unexplained decrease (part of it
// taken from the queue ahead of our order) and once more as the trade,
// counting the queue twice. The recorder and the importer both write in
// this order; an unknown kind ranks last.
func SameTimeRank(k Kind) int {
	switch k {
	case KindMeta:
		return 0
	case KindTrade:
		return 1
	case KindBook:
		return 2
	}
	return 3
}

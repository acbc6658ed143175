package recording

// BookStore holds copies of books, with their Fixed levels, in memory it
// reuses: for a reader that reads ahead of a Reader whose books are valid
// only until the next read (FixedLevelsOnly), such as a prefetching
// goroutine. Reset makes the memory reusable, and so invalidates every copy
// made before it. The zero value is ready; it is not safe for concurrent
// use.
type BookStore struct {
	cells  [][]bookCell // chunks; cells[ci][:cj] are in use
	ci, cj int
	lv     [][]Level // chunks; lv[li][:lj] are in use
	li, lj int
}

// Chunk sizes of a BookStore.
const (
	storeCells  = 256
	storeLevels = 1 << 14
)

// Copy returns a copy of b whose Fixed levels live in s, valid until
// Reset. A book without Fixed levels (built by hand) is not reused by
// anything, and is returned as it is. Decimal levels, which a Reader
// never reuses, are shared.
func (s *BookStore) Copy(b *Book) *Book {
	if b.fx == nil {
		return b
	}
	c := s.cell()
	c.Book = *b
	nb := len(b.fx.Bids)
	lv := s.levels(nb + len(b.fx.Asks))
	copy(lv, b.fx.Bids)
	copy(lv[nb:], b.fx.Asks)
	c.fb = FixedBook{Bids: lv[:nb:nb], Asks: lv[nb:]}
	c.Book.fx = &c.fb
	return &c.Book
}

// Reset makes all of s's memory reusable.
func (s *BookStore) Reset() {
	for i := range s.ci + 1 {
		if i < len(s.cells) {
			clear(s.cells[i]) // drop the strings and decimals the copies held
		}
	}
	s.ci, s.cj, s.li, s.lj = 0, 0, 0, 0
}

func (s *BookStore) cell() *bookCell {
	if s.ci < len(s.cells) && s.cj == len(s.cells[s.ci]) {
		s.ci, s.cj = s.ci+1, 0
	}
	if s.ci == len(s.cells) {
		s.cells = append(s.cells, make([]bookCell, storeCells))
	}
	c := &s.cells[s.ci][s.cj]
	s.cj++
	return c
}

func (s *BookStore) levels(n int) []Level {
	for {
		if s.li == len(s.lv) {
			s.lv = append(s.lv, make([]Level, max(n, storeLevels)))
		}
		if ch := s.lv[s.li]; n <= len(ch)-s.lj {
			out := ch[s.lj : s.lj+n : s.lj+n]
			s.lj += n
			return out
		}
		s.li, s.lj = s.li+1, 0
	}
}

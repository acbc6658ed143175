package state

import "time"

// Convenience reads, each in its own read-only transaction. Use View to read
// several things from one consistent state.

// Order returns the order with the given hash, or ErrNotFound.
func (s *Store) Order(hash string) (o Order, err error) {
	err = s.View(func(tx *Tx) error { o, err = tx.Order(hash); return err })
	return o, err
}

// OrderByExchangeID returns the order the exchange knows by id, or
// ErrNotFound.
func (s *Store) OrderByExchangeID(id string) (o Order, err error) {
	err = s.View(func(tx *Tx) error { o, err = tx.OrderByExchangeID(id); return err })
	return o, err
}

// Orders returns the orders that match f, oldest first.
func (s *Store) Orders(f OrderFilter) (out []Order, err error) {
	err = s.View(func(tx *Tx) error { out, err = tx.Orders(f); return err })
	return out, err
}

// NonFinalOrders returns every order in Intent, Sent, Live or
// PartiallyFilled, oldest first.
func (s *Store) NonFinalOrders() (out []Order, err error) {
	err = s.View(func(tx *Tx) error { out, err = tx.NonFinalOrders(); return err })
	return out, err
}

// Positions returns every position, ordered by token id.
func (s *Store) Positions() (out []Position, err error) {
	err = s.View(func(tx *Tx) error { out, err = tx.Positions(); return err })
	return out, err
}

// Fills returns the fills at or after since, oldest first.
func (s *Store) Fills(since time.Time) (out []Fill, err error) {
	err = s.View(func(tx *Tx) error { out, err = tx.Fills(since); return err })
	return out, err
}

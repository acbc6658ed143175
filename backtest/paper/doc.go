// Package paper is mmbot's paper-trading venue (mmbot run --dry-run): it
// reads live books and trades from the exchange and keeps orders virtual,
// filling them with the same fill model as the backtest. The strategy loop
// sees a normal Venue; nothing reaches the order endpoints and no key is
// needed.
//
// Books returned to the loop include our own virtual orders (unless
// HideOwnOrders), trades are polled and de-duplicated, and finished orders
// are remembered for a while so that the loop can read them back. A Venue
// is safe for concurrent use.
package paper

// Package engine is the matching engine of the simulated exchange: one
// price-time priority book per binary market, balances per account with
// reservation for open orders, and settlement by transfer, mint or merge.
//
// Everything is integer base units with 6 decimals (Unit = 1,000,000): the
// counts of exchange.Fixed, held as int64 (error messages format them with
// Fixed.String). Prices are base units of collateral per share, sizes are
// base units of shares. Prices lie on the market's tick grid within
// [tick, Unit-tick]; sizes are multiples of SizeLot (0.01 share).
//
// # One book per market
//
// A binary market has two outcome tokens whose prices sum to one. The engine
// keeps a single book per market, priced in terms of outcome 0:
//
//   - BUY outcome 0 at p rests as a bid at p; SELL outcome 0 at p as an ask at p;
//   - BUY outcome 1 at q rests as an ask at 1-q; SELL outcome 1 at q as a bid at 1-q.
//
// A bid and an ask cross when the bid's price is at or above the ask's. What
// the match does depends on the two orders' tokens:
//
//   - BUY 0 against SELL 0, or SELL 1 against BUY 1: shares move for collateral;
//   - BUY 0 against BUY 1 (complementary buy): one share of each outcome is
//     minted per unit of collateral paid in by the two buyers together;
//   - SELL 1 against SELL 0 (complementary sell): one share of each outcome is
//     merged back into one unit of collateral, shared out to the two sellers.
//
// The execution price is the resting (maker) order's price; the taker gets
// any improvement. Each token's book as shown to clients (Book) is its own
// view of the market book, so the two tokens' books mirror each other.
//
// # Order types and self-trade prevention
//
// GTC rests until cancelled; GTD rests until its expiry time (the caller
// chooses it); FOK fills completely at once or is rejected with nothing
// changed; FAK fills what it can at once and cancels the rest. When a taker
// meets a resting order of its own account, the resting order is cancelled
// and matching goes on (cancel-resting self-trade prevention); an FOK order
// does not count its own resting orders as available liquidity.
//
// # Conservation
//
// Collateral and shares are neither created nor destroyed except by the
// defined rules: Deposit adds collateral, Split and complementary buys mint a
// pair of shares per unit of collateral placed in the market's escrow, Merge
// and complementary sells burn a pair and release one unit, and Resolve pays
// one unit per winning share out of escrow. So for every open market the
// escrow equals the outstanding shares of each outcome, and the collateral of
// all accounts plus all escrow equals the total deposited. CheckInvariants
// verifies all of this together with the reservations of open orders.
//
// An Engine is not safe for concurrent use; the caller serialises access.
package engine

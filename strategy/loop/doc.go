// Package loop runs the quoting loop: every cycle it reads the books through
// a Venue, plans each market with package strategy's pure pieces (snapshot,
// estimators, model, planner, risk checks), signs and journals the new
// orders, cancels and places them, reconciles what it sent with the
// exchange, and reports status. It is where quoting meets I/O; it reaches
// the exchange, the signer, the journal and time only through the small
// interfaces it declares (Venue, Clock, OrderSigner, Journal, OrderFinder,
// Observer), so the same loop runs live, in paper trading and in a
// backtest.
//
// Use: New checks a Config and wires the parts; Start reconciles; Run calls
// Cycle every Config.Cycle until its context ends, next to a Guard's Run;
// Shutdown cancels every order. CancelAll is Start then Shutdown, quoting
// nothing. SetParams (SIGHUP) and Status may be called from any goroutine;
// the other methods belong to the goroutine that runs the loop.
//
// One cycle (DESIGN.md §3), in this order:
//
//  1. Read the books of every quoted token, Config.BooksBatch tokens a call
//     (a batch that fails with not found or bad request is read again market
//     by market, and a market whose book is gone is no longer quoted), then
//     the tape. With Config.CheckBook every book is checked first: a
//     market with a refused book is not quoted until its books pass again.
//  2. Read orders back: every order sent without an answer, every order the
//     book says may have traded, then the least recently read ones, up to
//     Config.OrderReads. A grown matched size is a fill at the order's price.
//     The fills go to their market's strategy.MarketState (Adverse: the
//     back-off, pause and markout rules of strategy.WithAdverse read them),
//     and the markouts of earlier fills that came due are measured against
//     the market's fair value (CycleReport.Markouts); fills found later in
//     the cycle (a cancel's read) are handed over at its end.
//  3. Plan every market: snapshot → estimators → model → planner → risk
//     (strategy.Quoter), sharing the rate limiter's budget (Venue.Budget)
//     between markets, neediest first. A market whose book is stale or gone
//     has its orders cancelled; once the kill switch has tripped, every
//     order is cancelled and nothing is placed.
//  4. Cancel first. A market with a cancel that was not confirmed places
//     nothing this cycle.
//  5. Sign the new orders (on several goroutines when the OrderSigner is a
//     ConcurrentSigner; the intents keep the plan's order) and record their
//     intents in the Journal, all in one call.
//  6. Place them, Config.MaxBatch orders a call, then write everything the
//     cycle learned (sends, state changes, fills) in one Journal.Apply.
//  7. Publish the Status and hand a CycleReport to the Observer.
//
// Concurrency: the requests of one step that do not depend on each other
// (the book batches and the tape, the order reads, the cancels, the
// placement batches) run concurrently when Config.Concurrency is above 1,
// each bounded by Config.RequestTimeout, so one slow request costs its own
// market this cycle and not the others theirs: a book batch that fails
// leaves its markets held (orders kept, not planned) unless their books go
// stale, and the cycle fails only when every batch failed. Their answers
// are always applied in one fixed order, and with Concurrency at most 1 the
// requests are made one at a time in that order, as a backtest's venue
// needs. Cancels that must all go (the kill switch's, Shutdown's, the
// guard's) are sent only as far as the DELETE budget takes them now (at
// least one), least recently tried first, instead of racing for it. The kill switch is checked again before anything is signed and
// before each placement batch.
//
// Journal before send: no order reaches the Venue before its intent (the
// signed item and its hash) is in the Journal; when RecordIntents fails,
// nothing is placed. A placement is never retried: a batch whose answer is
// lost leaves its orders "sent", and the order reads of later cycles settle
// them by hash. An order whose answer never came may still be on its way:
// it stays unknown, counted by the risk totals as possibly live, until its
// grace (Config.NotFoundGrace plus the market's PlacementDelay) has passed
// since it was journaled; only then, still unknown to the exchange, is it
// marked failed. This holds at Start too.
//
// Fills: orders are read back on evidence (a trade of the account's history,
// Config.History; a book that says they traded; an unconfirmed cancel; a
// lost placement answer) and by a slow round robin, both within a share of
// the Venue's read budget (ReadBudgeter, Config.OrderReadShare). A trade
// naming an order the journal marked failed revives it (Batch.Revived):
// read, its fills booked, its state corrected, then Config.Unknown applies.
//
// Reconciliation: Start reads the positions and every non-final order from
// the Journal and reads each order back from the exchange, booking the fills
// it made while the bot was down; it reads the trade history from the
// journal's cursor (TradeCursorReader), applies Config.Unknown to live
// orders the journal does not know (found through the history, or
// Config.Finder) and cancels the orders of markets no longer configured. Only after Start returns nil may the daemon say it is
// ready. Shutdown cancels every tracked order and reads them back until each
// is final or its context ends.
//
// The guard: the loop's own stale-book protection runs only while its cycles
// complete. A Guard (NewGuard) watches from its own goroutine, every
// GuardConfig.Period on the loop's clock, what the loop shows it (the
// orders that may be live, the books behind them, when the loop last judged
// its books and last completed a cycle). When no cycle has completed for
// GuardConfig.MaxCycleGap, or live orders rest on books older than the
// book-age limit that no cycle has judged since, it trips the kill switch
// (risk.TripStaleLoop, risk.TripStaleQuotes), logs one line saying why, and
// cancels those orders itself, concurrently and each with its own timeout,
// never behind the loop's stuck requests. The loop reads the orders it
// cancelled back at its next cycle or at Shutdown, and journals them.
//
// Refused credentials and failing cancels: the loop sees the answer to
// every authenticated call (place, cancel, order read; the guard's too). A
// 401 or 403 trips the kill switch with risk.TripAuth, is logged once per
// distinct answer with a count, and holds the authenticated calls back
// (one let out 1 s later, then 2 s, 4 s … up to 30 s apart) until one is
// accepted. CheckCredentials proves the credentials with one read of an
// order that cannot exist; CancelAll starts with it, and Shutdown stops at
// a refusal with a *CredentialsError instead of retrying every order. A
// cancel that fails holds its order back from the next cancels (0.5 s
// doubling to 8 s), and Shutdown's rounds come further apart while they
// settle nothing (auth.go, backoff.go, errtally.go).
//
// The Venue seam: Venue is the few calls the loop makes to an exchange (read
// books, read the tape, place a batch, cancel one order, read one order, the
// rate budget now). The HTTP client (live), the paper venue and the replay
// venue of package backtest implement it, and the loop never knows which it
// has. Clock does the same for time: a backtest passes its simulated clock,
// so a run is deterministic and never sleeps. OrderSigner and Journal are
// implemented by packages signer and state through adapters in cmd/mmbot, so
// this package imports neither.
package loop

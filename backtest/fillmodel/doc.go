// Package fillmodel decides when and at what price a virtual order would
// have filled: the queue-aware Matcher (queue position, trades through and
// at our level, book moves, cancels), its latency model, the fill modes
// (optimistic, queue, conservative), fees and the exchange's reward
// scoring. The replay venue and the paper venue share it, so a backtest and
// a paper session fill the same orders the same way.
//
// Contract and caveats:
//
//   - Money is exact: prices and sizes are exchange.Fixed (an int64 count
//     of millionths). Floats appear only in the queue-split probabilities.
//   - It is deterministic: latency draws and the sampled queue model come
//     from seeded PCG sources.
//   - The Matcher's OnBook, OnTrade and Advance do not allocate in the
//     steady state. The []Fill they return is owned by the Matcher and
//     valid only until its next call.
package fillmodel

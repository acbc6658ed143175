// Package backtest is the map of mmbot's backtester and paper trading; the
// code lives in its subpackages, one job each, and imports only run down
// this list (internal/archtest keeps it so):
//
//   - report: the text, CSV, JSON, HTML and SVG reports of a run and of a
//     sweep.
//   - export: recordings and a run's or a sweep's results as Parquet files
//     (parquet-go stays inside it).
//   - replay: the replay venue, the strategy loop's Venue and Clock over a
//     recording; Run drives one backtest, ScanMarkets finds a recording's
//     markets.
//   - sweep: parameter grids run in parallel, one row of headline figures
//     per combination.
//   - paper: the paper-trading venue: live books and trades, virtual orders
//     filled by the fill model, nothing sent.
//   - accounting: cash, positions, fees, PnL decomposition, markouts and the
//     time series of a run: the Accumulator and its Results.
//   - fillmodel: the queue-aware Matcher with its latency, queue and fill
//     modes, fees and reward scoring, shared by the replay and paper venues.
//   - importer: converts the exchange's market-channel messages into a
//     recording.
//   - recorder: polls an exchange's books and trades into a recording.
//   - recording: the recording format: events, header, the streaming Reader
//     and the atomic Writer, validation and de-duplication.
//
// backtest/internal holds the fixtures the tests of these packages share.
// docs/backtesting.md and docs/data-format.md describe the whole.
package backtest

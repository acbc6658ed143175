// Package synthetic makes the synthetic markets, recordings and
// hand-computed accounting runs that the backtest packages' tests and
// benchmarks share: a seeded random walk of one binary market with informed
// and uninformed takers. Only tests import it.
package synthetic

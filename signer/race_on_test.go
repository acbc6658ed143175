//go:build race

package signer

// raceEnabled skips tests that are too slow under the race detector.
const raceEnabled = true

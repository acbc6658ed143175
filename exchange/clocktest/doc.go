// Package clocktest provides a manual fake clock for tests of any mmbot
// package that takes an injected clock.
//
// A *Clock only moves when a test calls Advance, Set or AdvanceToNext.
// Goroutines blocked in Sleep or waiting on an After channel wake when the
// clock reaches their deadline (in deadline order). BlockUntil lets a test
// wait until a known number of goroutines are asleep before it moves time,
// which makes multi-goroutine tests deterministic without real sleeps.
//
// It satisfies exchange.Clock (Now, Sleep) and also offers After for code
// that selects on a timer channel, and AfterFunc (with a stop that removes
// the waiter) for code that bounds a context by the clock.
package clocktest

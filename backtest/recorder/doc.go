// Package recorder polls an exchange's books and trades for a set of
// markets and writes them as recording events (mmbot record): changed books
// only, trades de-duplicated across overlapping responses, market metadata
// when it changes, with gaps and errors counted rather than hidden.
// AsyncSink moves the writing off the polling goroutine.
package recorder

package exchange

import (
	"errors"
	"fmt"
)

// This file bounds the answer bodies the client reads: each endpoint gets
// what its largest honest answer needs, derived from the spec's parameter
// bounds (docs/protocol.md, "Answer bounds", shows the table and the
// reasoning). A body over its bound is refused unread, never decoded in
// part: a hostile or broken server cannot make the daemon hold tens of
// megabytes per request.

// Byte units.
const (
	kib = 1 << 10
	mib = 1 << 20
)

// Sizes of the honest answers' parts. Each is a generous upper bound of one
// item as the spec describes it (ids and addresses under 100 bytes, amounts
// under 30, the long strings are descriptions, titles, bios and image URLs).
const (
	// BookMaxLevels is the most levels an honest book holds: prices lie in
	// (0, 1) on the finest tick 0.0001, and in an uncrossed book a price is
	// on one side only.
	BookMaxLevels = 9999
	// levelBytes is one level, {"price":"0.9999","size":"1000000000.000000"}
	// (46 bytes), with room for spaces.
	levelBytes = 64
	// bookBytes is one book: its levels and its other fields (market, asset
	// id, hash, timestamp, tick, minimum size, last price).
	bookBytes = BookMaxLevels*levelBytes + 4*kib

	tradeBytes          = 4 * kib  // data API trade: ~25 fields, profile strings included
	closedPositionBytes = 4 * kib  // data API closed position
	holderBytes         = 2 * kib  // data API holder, profile strings included
	catalogMarketBytes  = 32 * kib // catalog market: the description holds the resolution rules
	catalogEventBytes   = 64 * kib // an event of a list: event fields, tags, a few markets
	eventSummaryBytes   = 8 * kib  // an event summary inside a catalog market
	catalogSeriesBytes  = 64 * kib // a series with its event summaries
	tagBytes            = 1 * kib
	clobMarketBytes     = 16 * kib // order-book market: question, description, tokens, rewards, tags
	summaryBytes        = 16 * kib // market summary with description, event and raw_metadata
	builderTradeBytes   = 16 * kib // a builder trade with its maker orders (~40)
	spreadBytes         = 256      // "token id": "0.0123",
	placementBytes      = 2 * kib  // one POST /orders result, error message included

	// PageMaxItems is the most items the client expects on one page of a
	// cursor list (GET /markets, /sampling-markets, /simplified-markets,
	// /builder/trades): the spec does not show the page size.
	PageMaxItems = 1000
	// EventMaxMarkets is the most markets the client expects in one event
	// read by id or slug.
	EventMaxMarkets = 256

	// errorBodyBytes bounds the body of a non-2xx answer: the error shapes
	// are one or two short strings. A longer error body is cut, not refused:
	// the status is what the client acts on.
	errorBodyBytes = 64 * kib
)

// answerBound is the largest body of an endpoint's honest answer: fixed
// bytes plus perItem for each item the request can bring back (tokens of
// POST /books, orders of POST /orders, the limit of a list).
type answerBound struct {
	fixed, perItem int64
}

// bytes returns the bound for a request of items items.
func (b answerBound) bytes(items int) int64 { return b.fixed + int64(max(items, 0))*b.perItem }

// ErrBodyTooLarge is matched by every *BodyTooLargeError.
var ErrBodyTooLarge = errors.New("exchange: answer larger than its endpoint's bound")

// BodyTooLargeError is a 2xx answer whose body is larger than what the
// endpoint's largest honest answer needs. Nothing of it was decoded, and the
// rest of it was not read.
type BodyTooLargeError struct {
	Area     Area
	Endpoint string // e.g. "POST /books"
	Status   int
	Limit    int64 // the bound, in bytes
	Items    int   // the items the request could bring back (tokens, orders, the limit); 0 for a fixed bound
	// ContentLength is the length the server declared, -1 when it declared
	// none (then more than Limit bytes arrived).
	ContentLength int64
}

func (e *BodyTooLargeError) Error() string {
	size := fmt.Sprintf("more than %d bytes", e.Limit)
	if e.ContentLength >= 0 {
		size = fmt.Sprintf("%d bytes (Content-Length)", e.ContentLength)
	}
	per := ""
	if e.Items > 0 {
		per = fmt.Sprintf(" for %d items", e.Items)
	}
	return fmt.Sprintf("exchange: %s %s: HTTP %d answer of %s is over the endpoint's bound of %d bytes%s; refused, nothing decoded",
		e.Area, e.Endpoint, e.Status, size, e.Limit, per)
}

// Is matches ErrBodyTooLarge.
func (e *BodyTooLargeError) Is(target error) bool { return target == ErrBodyTooLarge }

// MaxAnswerBytes returns the bound the client puts on a 2xx answer of the
// endpoint named as in the endpoint table ("POST /books", "GET /trades",
// ...) for a request of items items (tokens, orders, a list's limit; 0 for
// an endpoint whose answer does not grow with the request). ok is false for
// an unknown endpoint.
func MaxAnswerBytes(endpoint string, items int) (n int64, ok bool) {
	for i := range endpointSpecs {
		s := &endpointSpecs[i]
		if s.method+" "+s.pattern == endpoint || s.Name() == endpoint {
			return s.answer.bytes(items), true
		}
	}
	return 0, false
}

// listItems is the number of items a list request can bring back: its limit
// when set and positive, else the server's default.
func listItems(limit *int, def int) int {
	if limit != nil && *limit > 0 {
		return *limit
	}
	return def
}

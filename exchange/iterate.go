package exchange

import (
	"context"
	"fmt"
	"iter"
)

// Iterators walk a list to its end, one request per page, each through the
// limiter. They yield (item, nil) for every item and, on failure, one
// (zero, err) and stop; a done ctx is such a failure, checked before each
// item. Breaking out of the
// range loop stops the walk without another request.

// DefaultPageSize is the page size the offset iterators ask for when the
// caller's parameters set no limit (the spec's default for the catalog
// lists and GET /trades).
const DefaultPageSize = 100

// cursorPages walks a cursor-paged list from start (FirstCursor if "")
// until the server answers EndCursor or an empty cursor.
func cursorPages[T any](ctx context.Context, start string, fetch func(context.Context, string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		cursor := start
		if cursor == "" {
			cursor = FirstCursor
		}
		seen := map[string]bool{}
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			seen[cursor] = true
			items, next, err := fetch(ctx, cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			if !yieldAll(ctx, items, yield) {
				return
			}
			if next == "" || next == EndCursor {
				return
			}
			if seen[next] {
				yield(zero, fmt.Errorf("exchange: the server sent cursor %q again; stopping to avoid a loop", next))
				return
			}
			cursor = next
		}
	}
}

// offsetPages walks an offset-paged list: it asks for pages of size limit
// starting at offset and advances by the number of items received until a
// short page arrives or the next offset would pass maxOffset (noUpper: no
// bound). Stopping at the bound is silent: the API serves nothing past it.
func offsetPages[T any](ctx context.Context, offset, limit, maxOffset int, fetch func(ctx context.Context, offset, limit int) ([]T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			items, err := fetch(ctx, offset, limit)
			if err != nil {
				yield(zero, err)
				return
			}
			if !yieldAll(ctx, items, yield) {
				return
			}
			if len(items) < limit {
				return
			}
			offset += len(items)
			if maxOffset != noUpper && offset > maxOffset {
				return
			}
		}
	}
}

// yieldAll yields items until the consumer stops or ctx is done (then
// the ctx error is yielded); it reports whether to go on.
func yieldAll[T any](ctx context.Context, items []T, yield func(T, error) bool) bool {
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			var zero T
			yield(zero, err)
			return false
		}
		if !yield(it, nil) {
			return false
		}
	}
	return true
}

// pageStart returns the first offset and the page size of an offset walk.
// A page size of 0 would never advance, so it is refused.
func pageStart(offset, limit *int) (int, int, error) {
	o, l := 0, DefaultPageSize
	if offset != nil {
		o = *offset
	}
	if limit != nil {
		l = *limit
	}
	if l < 1 {
		return 0, 0, &ParamError{Param: "limit", Value: fmt.Sprint(l), Rule: "must be at least 1 to iterate"}
	}
	return o, l, nil
}

// failed is an iterator that yields one error.
func failed[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}

// AllMarkets walks GET /markets from the first page to the last.
func (c *Client) AllMarkets(ctx context.Context) iter.Seq2[Market, error] {
	return cursorPages(ctx, FirstCursor, func(ctx context.Context, cur string) ([]Market, string, error) {
		p, err := c.Markets(ctx, cur)
		if err != nil {
			return nil, "", err
		}
		return p.Data, p.NextCursor, nil
	})
}

// AllSamplingMarkets walks GET /sampling-markets to the last page.
func (c *Client) AllSamplingMarkets(ctx context.Context) iter.Seq2[MarketSummary, error] {
	return cursorPages(ctx, FirstCursor, func(ctx context.Context, cur string) ([]MarketSummary, string, error) {
		p, err := c.SamplingMarkets(ctx, cur)
		if err != nil {
			return nil, "", err
		}
		return p.Data, p.NextCursor, nil
	})
}

// AllSimplifiedMarkets walks GET /simplified-markets to the last page.
func (c *Client) AllSimplifiedMarkets(ctx context.Context) iter.Seq2[MarketSummary, error] {
	return cursorPages(ctx, FirstCursor, func(ctx context.Context, cur string) ([]MarketSummary, string, error) {
		p, err := c.SimplifiedMarkets(ctx, cur)
		if err != nil {
			return nil, "", err
		}
		return p.Data, p.NextCursor, nil
	})
}

// AllBuilderTrades walks GET /builder/trades from p.NextCursor (FirstCursor
// if empty) to the end.
func (c *Client) AllBuilderTrades(ctx context.Context, p BuilderTradesParams) iter.Seq2[BuilderTrade, error] {
	if err := p.Validate(); err != nil {
		return failed[BuilderTrade](err)
	}
	return cursorPages(ctx, p.NextCursor, func(ctx context.Context, cur string) ([]BuilderTrade, string, error) {
		q := p
		q.NextCursor = cur
		page, err := c.BuilderTrades(ctx, q)
		if err != nil {
			return nil, "", err
		}
		return page.Data, page.NextCursor, nil
	})
}

// AllEvents walks GET /events from p.Offset in pages of p.Limit (default
// 100).
func (c *Client) AllEvents(ctx context.Context, p EventsParams) iter.Seq2[Event, error] {
	off, lim, err := pageStart(p.Offset, p.Limit)
	if err == nil {
		err = p.Validate()
	}
	if err != nil {
		return failed[Event](err)
	}
	return offsetPages(ctx, off, lim, noUpper, func(ctx context.Context, o, l int) ([]Event, error) {
		q := p
		q.Offset, q.Limit = &o, &l
		return c.Events(ctx, q)
	})
}

// AllSeries walks GET /series.
func (c *Client) AllSeries(ctx context.Context, p ListParams) iter.Seq2[Series, error] {
	off, lim, err := pageStart(p.Offset, p.Limit)
	if err == nil {
		err = p.Validate()
	}
	if err != nil {
		return failed[Series](err)
	}
	return offsetPages(ctx, off, lim, noUpper, func(ctx context.Context, o, l int) ([]Series, error) {
		q := p
		q.Offset, q.Limit = &o, &l
		return c.Series(ctx, q)
	})
}

// AllTags walks GET /tags.
func (c *Client) AllTags(ctx context.Context, p ListParams) iter.Seq2[Tag, error] {
	off, lim, err := pageStart(p.Offset, p.Limit)
	if err == nil {
		err = p.Validate()
	}
	if err != nil {
		return failed[Tag](err)
	}
	return offsetPages(ctx, off, lim, noUpper, func(ctx context.Context, o, l int) ([]Tag, error) {
		q := p
		q.Offset, q.Limit = &o, &l
		return c.Tags(ctx, q)
	})
}

// AllTrades walks data API GET /trades; it stops silently where the next
// offset would pass the API's bound (10000).
func (c *Client) AllTrades(ctx context.Context, p TradesParams) iter.Seq2[Trade, error] {
	off, lim, err := pageStart(p.Offset, p.Limit)
	if err == nil {
		err = p.Validate()
	}
	if err != nil {
		return failed[Trade](err)
	}
	return offsetPages(ctx, off, lim, TradesMaxOffset, func(ctx context.Context, o, l int) ([]Trade, error) {
		q := p
		q.Offset, q.Limit = &o, &l
		return c.Trades(ctx, q)
	})
}

// AllClosedPositions walks GET /closed-positions in pages of p.Limit
// (default 50, the largest allowed); it stops silently where the next offset
// would pass the API's bound (100000).
func (c *Client) AllClosedPositions(ctx context.Context, p ClosedPositionsParams) iter.Seq2[ClosedPosition, error] {
	if p.Limit == nil {
		p.Limit = Ptr(ClosedPositionsMaxLimit)
	}
	off, lim, err := pageStart(p.Offset, p.Limit)
	if err == nil {
		err = p.Validate()
	}
	if err != nil {
		return failed[ClosedPosition](err)
	}
	return offsetPages(ctx, off, lim, ClosedPositionsMaxOffset, func(ctx context.Context, o, l int) ([]ClosedPosition, error) {
		q := p
		q.Offset, q.Limit = &o, &l
		return c.ClosedPositions(ctx, q)
	})
}

package exchange

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"

	"github.com/shopspring/decimal"
)

func cursorQuery(cursor string) url.Values {
	if cursor == "" {
		return nil
	}
	return url.Values{"next_cursor": {cursor}}
}

// Markets returns one page of order-book markets (GET /markets); cursor ""
// sends none, FirstCursor asks for the first page explicitly.
func (c *Client) Markets(ctx context.Context, cursor string) (*MarketsPage, error) {
	var out MarketsPage
	if err := c.doJSON(ctx, call{ep: epMarkets, path: "/markets", query: cursorQuery(cursor)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Market returns one market (GET /markets/{condition_id}) in whichever of
// its two documented shapes the server sends; see MarketDetail.Shape.
func (c *Client) Market(ctx context.Context, conditionID string) (*MarketDetail, error) {
	if conditionID == "" {
		return nil, &ParamError{Param: "condition_id", Value: "", Rule: "is required"}
	}
	var out MarketDetail
	if err := c.doJSON(ctx, call{ep: epMarket, path: "/markets/" + url.PathEscape(conditionID)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SamplingMarkets returns one page of GET /sampling-markets.
func (c *Client) SamplingMarkets(ctx context.Context, cursor string) (*SummariesPage, error) {
	var out SummariesPage
	if err := c.doJSON(ctx, call{ep: epSamplingMarkets, path: "/sampling-markets", query: cursorQuery(cursor)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SimplifiedMarkets returns one page of GET /simplified-markets.
func (c *Client) SimplifiedMarkets(ctx context.Context, cursor string) (*SummariesPage, error) {
	var out SummariesPage
	if err := c.doJSON(ctx, call{ep: epSimplifiedMarkets, path: "/simplified-markets", query: cursorQuery(cursor)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// tokenBody encodes the POST /books and POST /spreads body.
func tokenBody(tokenIDs []string) ([]byte, error) {
	if len(tokenIDs) == 0 {
		return nil, &ParamError{Param: "token_id", Value: "", Rule: "at least one token id is required"}
	}
	refs := make([]TokenRef, len(tokenIDs))
	for i, id := range tokenIDs {
		if id == "" {
			return nil, &ParamError{Param: fmt.Sprintf("[%d].token_id", i), Value: "", Rule: "must not be empty"}
		}
		refs[i] = TokenRef{TokenID: id}
	}
	return json.Marshal(refs)
}

// Books returns the books of the given tokens (POST /books), as sent; call
// OrderBook.Normalize for best-first levels. A book's terms and last trade
// price may be "" (read as no value; see decodeBooks).
func (c *Client) Books(ctx context.Context, tokenIDs []string) ([]OrderBook, error) {
	body, err := tokenBody(tokenIDs)
	if err != nil {
		return nil, err
	}
	status, raw, err := c.do(ctx, call{ep: epBooks, path: "/books", body: body, answer: len(tokenIDs)})
	if err != nil {
		return nil, err
	}
	out, err := decodeBooks(raw)
	if err != nil {
		s := &endpointSpecs[epBooks]
		return nil, &DecodeError{Area: s.area, Endpoint: s.method + " " + s.pattern, Status: status, Body: clip(raw, bodyQuote), Err: err}
	}
	return out, nil
}

// Spreads returns the spread per token (POST /spreads), keyed as the server
// keys it (by token id).
func (c *Client) Spreads(ctx context.Context, tokenIDs []string) (map[string]decimal.Decimal, error) {
	body, err := tokenBody(tokenIDs)
	if err != nil {
		return nil, err
	}
	var out map[string]decimal.Decimal
	if err := c.doJSON(ctx, call{ep: epSpreads, path: "/spreads", body: body, answer: len(tokenIDs)}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Order reads one order (GET /data/order/{id}, authenticated; the body's
// {"order": ...} wrapper is removed).
func (c *Client) Order(ctx context.Context, id string) (*Order, error) {
	if id == "" {
		return nil, &ParamError{Param: "id", Value: "", Rule: "is required"}
	}
	var out OrderEnvelope
	if err := c.doJSON(ctx, call{ep: epOrder, path: "/data/order/" + url.PathEscape(id)}, &out); err != nil {
		return nil, err
	}
	return &out.Order, nil
}

// PlaceOrders sends one batch of signed orders (POST /orders,
// authenticated). Each order takes one unit of both POST /order rate windows.
// It is never retried. Per-order failures come back in the results (Success
// false, ErrorMsg); the results are in the order of items, and a count that
// differs from len(items) is returned together with an error.
func (c *Client) PlaceOrders(ctx context.Context, items []PlacementItem) ([]PlacementResult, error) {
	if len(items) == 0 || len(items) > c.maxBatch {
		return nil, &ParamError{Param: "orders", Value: fmt.Sprint(len(items)), Rule: fmt.Sprintf("a batch holds 1 to %d orders", c.maxBatch)}
	}
	for i := range items {
		if !items[i].Order.Side.Valid() {
			return nil, &ParamError{Param: fmt.Sprintf("[%d].order.side", i), Value: string(items[i].Order.Side), Rule: "must be BUY or SELL"}
		}
		if !items[i].OrderType.Valid() {
			return nil, &ParamError{Param: fmt.Sprintf("[%d].orderType", i), Value: string(items[i].OrderType), Rule: "must be GTC, GTD, FOK or FAK"}
		}
	}
	body, err := json.Marshal(items)
	if err != nil {
		return nil, fmt.Errorf("exchange: encoding orders: %w", err)
	}
	var out []PlacementResult
	if err := c.doJSON(ctx, call{ep: epPlaceOrders, path: "/orders", body: body, items: len(items), answer: len(items)}, &out); err != nil {
		return nil, err
	}
	if len(out) != len(items) {
		return out, fmt.Errorf("exchange: POST /orders answered %d results for %d orders", len(out), len(items))
	}
	return out, nil
}

// CancelOrder cancels one order (DELETE /order with body {"orderId": id},
// authenticated). It is never retried. An order that could not be cancelled
// is listed in the result's NotCanceled.
func (c *Client) CancelOrder(ctx context.Context, orderID string) (*CancelResult, error) {
	if orderID == "" {
		return nil, &ParamError{Param: "orderId", Value: "", Rule: "is required"}
	}
	body, err := json.Marshal(CancelRequest{OrderID: orderID})
	if err != nil {
		return nil, fmt.Errorf("exchange: encoding cancel: %w", err)
	}
	var out CancelResult
	if err := c.doJSON(ctx, call{ep: epCancelOrder, path: "/order", body: body}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// BuilderTrades returns one page of GET /builder/trades. The spec's body is
// a bare array: the page's NextCursor is then derived from the cursor sent
// (base64 of offset + items; EndCursor after an empty page). A server that
// answers {data, next_cursor} is read as it is.
func (c *Client) BuilderTrades(ctx context.Context, p BuilderTradesParams) (*BuilderTradesPage, error) {
	q, err := p.encode()
	if err != nil {
		return nil, err
	}
	status, body, err := c.do(ctx, call{ep: epBuilderTrades, path: "/builder/trades", query: q})
	if err != nil {
		return nil, err
	}
	page, err := decodeBuilderTrades(body, p.NextCursor)
	if err != nil {
		s := &endpointSpecs[epBuilderTrades]
		return nil, &DecodeError{Area: s.area, Endpoint: s.method + " " + s.pattern, Status: status, Body: clip(body, bodyQuote), Err: err}
	}
	return page, nil
}

func decodeBuilderTrades(body []byte, sent string) (*BuilderTradesPage, error) {
	trimmed := firstNonSpace(body)
	if trimmed == '{' {
		var page BuilderTradesPage
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, err
		}
		return &page, nil
	}
	var trades []BuilderTrade
	if err := json.Unmarshal(body, &trades); err != nil {
		return nil, err
	}
	page := &BuilderTradesPage{Data: trades, NextCursor: EndCursor}
	if len(trades) > 0 {
		if off, ok := DecodeCursor(sent); ok && off >= 0 && off <= math.MaxInt64-int64(len(trades)) {
			page.NextCursor = EncodeCursor(off + int64(len(trades)))
		}
	}
	return page, nil
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

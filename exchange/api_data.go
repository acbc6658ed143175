package exchange

import "context"

// holdersItems is what GET /holders can bring back: one group per outcome
// token (two per market) of up to limit holders, the group itself counted
// as one more item.
func holdersItems(p *HoldersParams) int {
	return 2 * len(p.Market) * (listItems(p.Limit, HoldersDefaultLimit) + 1)
}

// Trades returns cached fills (data API GET /trades).
func (c *Client) Trades(ctx context.Context, p TradesParams) ([]Trade, error) {
	q, err := p.encode()
	if err != nil {
		return nil, err
	}
	var out []Trade
	if err := c.doJSON(ctx, call{ep: epTrades, path: "/trades", query: q, answer: listItems(p.Limit, TradesDefaultLimit)}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ClosedPositions returns a wallet's closed positions (data API
// GET /closed-positions).
func (c *Client) ClosedPositions(ctx context.Context, p ClosedPositionsParams) ([]ClosedPosition, error) {
	q, err := p.encode()
	if err != nil {
		return nil, err
	}
	var out []ClosedPosition
	if err := c.doJSON(ctx, call{ep: epClosedPositions, path: "/closed-positions", query: q, answer: listItems(p.Limit, ClosedPositionsDefaultLimit)}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Holders returns the top holders per token of the given markets (data API
// GET /holders).
func (c *Client) Holders(ctx context.Context, p HoldersParams) ([]HolderGroup, error) {
	q, err := p.encode()
	if err != nil {
		return nil, err
	}
	var out []HolderGroup
	if err := c.doJSON(ctx, call{ep: epHolders, path: "/holders", query: q, answer: holdersItems(&p)}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

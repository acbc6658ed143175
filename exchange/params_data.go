package exchange

import (
	"net/url"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// Data API parameter bounds (spec, Endpoints).
const (
	TradesMaxLimit           = 10000
	TradesMaxOffset          = 10000
	ClosedPositionsMaxLimit  = 50
	ClosedPositionsMaxOffset = 100000
	HoldersMaxLimit          = 500
	// The servers' defaults of limit.
	TradesDefaultLimit          = 100
	ClosedPositionsDefaultLimit = 10
	HoldersDefaultLimit         = 100
	ClosedPositionsMaxTitle     = 100
)

// Trade filter types.
const (
	FilterCash   = "CASH"
	FilterTokens = "TOKENS"
)

// TradesParams are the query parameters of GET /trades. Nil and empty
// fields are not sent (the server's defaults apply: limit 100, offset 0,
// takerOnly true).
type TradesParams struct {
	Limit        *int             // 0 to 10000
	Offset       *int             // 0 to 10000
	TakerOnly    *bool            // restrict to taker fills
	FilterType   string           // CASH or TOKENS; requires FilterAmount
	FilterAmount *decimal.Decimal // >= 0
	Market       []string         // condition ids
	User         string           // wallet address
	Side         Side             // BUY or SELL
}

// Validate checks every rule of the spec.
func (p *TradesParams) Validate() error { _, err := p.encode(); return err }

func (p *TradesParams) encode() (url.Values, error) {
	q := url.Values{}
	if err := checkIntRange(q, "limit", p.Limit, 0, TradesMaxLimit); err != nil {
		return nil, err
	}
	if err := checkIntRange(q, "offset", p.Offset, 0, TradesMaxOffset); err != nil {
		return nil, err
	}
	setBool(q, "takerOnly", p.TakerOnly)
	if err := oneOf("filterType", p.FilterType, FilterCash, FilterTokens); err != nil {
		return nil, err
	}
	if p.FilterType != "" && p.FilterAmount == nil {
		return nil, &ParamError{Param: "filterAmount", Value: "", Rule: "is required when filterType is set"}
	}
	if p.FilterAmount != nil {
		if p.FilterAmount.IsNegative() {
			return nil, &ParamError{Param: "filterAmount", Value: p.FilterAmount.String(), Rule: "must be >= 0"}
		}
		q.Set("filterAmount", p.FilterAmount.String())
	}
	setString(q, "filterType", p.FilterType)
	if err := checkList(q, "market", p.Market, false); err != nil {
		return nil, err
	}
	setString(q, "user", p.User)
	if err := oneOf("side", string(p.Side), string(Buy), string(Sell)); err != nil {
		return nil, err
	}
	setString(q, "side", string(p.Side))
	return q, nil
}

// Closed-position sort columns and directions.
const (
	SortRealizedPnl = "REALIZEDPNL"
	SortTitle       = "TITLE"
	SortPrice       = "PRICE"
	SortAvgPrice    = "AVGPRICE"
	SortTimestamp   = "TIMESTAMP"
	SortAsc         = "ASC"
	SortDesc        = "DESC"
)

// ClosedPositionsParams are the query parameters of GET /closed-positions.
type ClosedPositionsParams struct {
	User          string   // required wallet address
	Market        []string // condition ids
	Title         string   // substring of the market title, at most 100 characters
	Limit         *int     // 0 to 50
	Offset        *int     // 0 to 100000
	SortBy        string   // REALIZEDPNL, TITLE, PRICE, AVGPRICE, TIMESTAMP
	SortDirection string   // ASC or DESC
}

// Validate checks every rule of the spec.
func (p *ClosedPositionsParams) Validate() error { _, err := p.encode(); return err }

func (p *ClosedPositionsParams) encode() (url.Values, error) {
	q := url.Values{}
	if p.User == "" {
		return nil, &ParamError{Param: "user", Value: "", Rule: "is required"}
	}
	q.Set("user", p.User)
	if err := checkList(q, "market", p.Market, false); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(p.Title) > ClosedPositionsMaxTitle {
		return nil, &ParamError{Param: "title", Value: clip([]byte(p.Title), 120), Rule: "must be at most 100 characters"}
	}
	setString(q, "title", p.Title)
	if err := checkIntRange(q, "limit", p.Limit, 0, ClosedPositionsMaxLimit); err != nil {
		return nil, err
	}
	if err := checkIntRange(q, "offset", p.Offset, 0, ClosedPositionsMaxOffset); err != nil {
		return nil, err
	}
	if err := oneOf("sortBy", p.SortBy, SortRealizedPnl, SortTitle, SortPrice, SortAvgPrice, SortTimestamp); err != nil {
		return nil, err
	}
	setString(q, "sortBy", p.SortBy)
	if err := oneOf("sortDirection", p.SortDirection, SortAsc, SortDesc); err != nil {
		return nil, err
	}
	setString(q, "sortDirection", p.SortDirection)
	return q, nil
}

// HoldersParams are the query parameters of GET /holders.
type HoldersParams struct {
	Market     []string         // required condition ids
	Limit      *int             // 0 to 500 holders per market
	MinBalance *decimal.Decimal // >= 0
}

// Validate checks every rule of the spec.
func (p *HoldersParams) Validate() error { _, err := p.encode(); return err }

func (p *HoldersParams) encode() (url.Values, error) {
	q := url.Values{}
	if err := checkList(q, "market", p.Market, true); err != nil {
		return nil, err
	}
	if err := checkIntRange(q, "limit", p.Limit, 0, HoldersMaxLimit); err != nil {
		return nil, err
	}
	if p.MinBalance != nil {
		if p.MinBalance.IsNegative() {
			return nil, &ParamError{Param: "minBalance", Value: p.MinBalance.String(), Rule: "must be >= 0"}
		}
		q.Set("minBalance", p.MinBalance.String())
	}
	return q, nil
}

package exchange

import (
	"net/url"
	"strconv"
)

// BuilderTradesParams are the query parameters of GET /builder/trades; all
// are optional.
type BuilderTradesParams struct {
	ID           string // trade id
	MakerAddress string
	Market       string // condition id
	AssetID      string // token id
	Before       *int64 // Unix seconds; trades strictly before, >= 0
	After        *int64 // Unix seconds; trades strictly after, >= 0
	NextCursor   string // "" sends none; FirstCursor starts
}

// Validate checks the parameters.
func (p *BuilderTradesParams) Validate() error { _, err := p.encode(); return err }

func (p *BuilderTradesParams) encode() (url.Values, error) {
	q := url.Values{}
	setString(q, "id", p.ID)
	setString(q, "maker_address", p.MakerAddress)
	setString(q, "market", p.Market)
	setString(q, "asset_id", p.AssetID)
	for _, ts := range []struct {
		name string
		v    *int64
	}{{"before", p.Before}, {"after", p.After}} {
		if ts.v == nil {
			continue
		}
		if *ts.v < 0 {
			return nil, &ParamError{Param: ts.name, Value: strconv.FormatInt(*ts.v, 10), Rule: "must be a Unix timestamp >= 0"}
		}
		q.Set(ts.name, strconv.FormatInt(*ts.v, 10))
	}
	setString(q, "next_cursor", p.NextCursor)
	return q, nil
}

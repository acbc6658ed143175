package catalog

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Catalog is the whole universe. IDs are unique within their kind.
type Catalog struct {
	Tags    []Tag    `json:"tags"`
	Series  []Series `json:"series"`
	Events  []Event  `json:"events"`
	Markets []Market `json:"markets"`
}

// Tag is a label events carry.
type Tag struct {
	ID                  int64     `json:"id"`
	Label               string    `json:"label"`
	Slug                string    `json:"slug"`
	CreatedAt           time.Time `json:"createdAt"`
	RequiresTranslation bool      `json:"requiresTranslation"`
}

// Series groups recurring events.
type Series struct {
	ID         int64     `json:"id"`
	Ticker     string    `json:"ticker"`
	Slug       string    `json:"slug"`
	Title      string    `json:"title"`
	SeriesType string    `json:"seriesType"`
	Recurrence string    `json:"recurrence"`
	Image      string    `json:"image"`
	Icon       string    `json:"icon"`
	Active     bool      `json:"active"`
	Closed     bool      `json:"closed"`
	Archived   bool      `json:"archived"`
	CreatedAt  time.Time `json:"createdAt"`
}

// Event groups markets about one question.
type Event struct {
	ID               int64          `json:"id"`
	Ticker           string         `json:"ticker"`
	Slug             string         `json:"slug"`
	Title            string         `json:"title"`
	Description      string         `json:"description"`
	ResolutionSource string         `json:"resolutionSource"`
	Image            string         `json:"image"`
	Icon             string         `json:"icon"`
	StartDate        time.Time      `json:"startDate"`
	EndDate          time.Time      `json:"endDate"`
	CreatedAt        time.Time      `json:"createdAt"`
	Active           bool           `json:"active"`
	Closed           bool           `json:"closed"`
	Archived         bool           `json:"archived"`
	Creator          string         `json:"creator"`
	TagIDs           []int64        `json:"tagIds"`
	SeriesIDs        []int64        `json:"seriesIds"`
	MarketIDs        []int64        `json:"marketIds"`
	NegRisk          bool           `json:"negRisk"`
	NegRiskMarketID  string         `json:"negRiskMarketId"`
	Metadata         map[string]any `json:"metadata,omitempty"`
}

// Rewards are a market's liquidity-reward terms.
type Rewards struct {
	MaxSpread decimal.Decimal `json:"maxSpread"` // cents
	MinSize   decimal.Decimal `json:"minSize"`   // shares
	DailyRate decimal.Decimal `json:"dailyRate"` // collateral per day
}

// Market is one binary market.
type Market struct {
	ID               int64           `json:"id"`
	EventID          int64           `json:"eventId"`
	Question         string          `json:"question"`
	ConditionID      string          `json:"conditionId"`
	QuestionID       string          `json:"questionId"`
	Slug             string          `json:"slug"`
	Description      string          `json:"description"`
	ResolutionSource string          `json:"resolutionSource"`
	Image            string          `json:"image"`
	Icon             string          `json:"icon"`
	Outcomes         [2]string       `json:"outcomes"`
	TokenIDs         [2]string       `json:"tokenIds"`
	StartDate        time.Time       `json:"startDate"`
	EndDate          time.Time       `json:"endDate"`
	CreatedAt        time.Time       `json:"createdAt"`
	Active           bool            `json:"active"`
	Closed           bool            `json:"closed"`
	Archived         bool            `json:"archived"`
	TickSize         decimal.Decimal `json:"tickSize"`
	MinOrderSize     decimal.Decimal `json:"minOrderSize"`
	NegRisk          bool            `json:"negRisk"`
	NegRiskMarketID  string          `json:"negRiskMarketId"`
	NegRiskRequestID string          `json:"negRiskRequestId"`
	Rewards          Rewards         `json:"rewards"`
	MakerBaseFee     int64           `json:"makerBaseFee"` // basis points
	TakerBaseFee     int64           `json:"takerBaseFee"`
	SecondsDelay     int64           `json:"secondsDelay"`
	Winner           int             `json:"winner"` // index of the winning outcome of a closed market, -1 if none
	InitialPrice     decimal.Decimal `json:"initialPrice"`
	Tags             []string        `json:"tags"` // tag labels, as the order-book API lists them
}

// Ticks are the four tick sizes the exchange uses.
var Ticks = []decimal.Decimal{
	decimal.RequireFromString("0.1"), decimal.RequireFromString("0.01"),
	decimal.RequireFromString("0.001"), decimal.RequireFromString("0.0001"),
}

// Index is a catalog with lookups. Build it with NewIndex after loading or
// generating; it is read-only and safe for concurrent use.
type Index struct {
	*Catalog
	marketByID   map[int64]int
	marketByCond map[string]int
	marketByTok  map[string]int
	eventByID    map[int64]int
	eventBySlug  map[string]int
	seriesByID   map[int64]int
	tagByID      map[int64]int
	tagBySlug    map[string]int
}

// NewIndex validates c and builds its lookups.
func NewIndex(c *Catalog) (*Index, error) {
	x := &Index{Catalog: c,
		marketByID: map[int64]int{}, marketByCond: map[string]int{}, marketByTok: map[string]int{},
		eventByID: map[int64]int{}, eventBySlug: map[string]int{}, seriesByID: map[int64]int{},
		tagByID: map[int64]int{}, tagBySlug: map[string]int{},
	}
	for i, t := range c.Tags {
		if _, dup := x.tagByID[t.ID]; dup {
			return nil, fmt.Errorf("catalog: duplicate tag id %d", t.ID)
		}
		x.tagByID[t.ID] = i
		x.tagBySlug[t.Slug] = i
	}
	for i, s := range c.Series {
		if _, dup := x.seriesByID[s.ID]; dup {
			return nil, fmt.Errorf("catalog: duplicate series id %d", s.ID)
		}
		x.seriesByID[s.ID] = i
	}
	for i, e := range c.Events {
		if _, dup := x.eventByID[e.ID]; dup {
			return nil, fmt.Errorf("catalog: duplicate event id %d", e.ID)
		}
		if _, dup := x.eventBySlug[e.Slug]; dup {
			return nil, fmt.Errorf("catalog: duplicate event slug %q", e.Slug)
		}
		x.eventByID[e.ID] = i
		x.eventBySlug[e.Slug] = i
		for _, id := range e.TagIDs {
			if _, ok := x.tagByID[id]; !ok {
				return nil, fmt.Errorf("catalog: event %d: unknown tag %d", e.ID, id)
			}
		}
		for _, id := range e.SeriesIDs {
			if _, ok := x.seriesByID[id]; !ok {
				return nil, fmt.Errorf("catalog: event %d: unknown series %d", e.ID, id)
			}
		}
	}
	for i, m := range c.Markets {
		if err := checkMarket(&m); err != nil {
			return nil, err
		}
		if _, dup := x.marketByID[m.ID]; dup {
			return nil, fmt.Errorf("catalog: duplicate market id %d", m.ID)
		}
		cond := strings.ToLower(m.ConditionID)
		if _, dup := x.marketByCond[cond]; dup {
			return nil, fmt.Errorf("catalog: duplicate condition id %s", m.ConditionID)
		}
		if _, ok := x.eventByID[m.EventID]; !ok {
			return nil, fmt.Errorf("catalog: market %d: unknown event %d", m.ID, m.EventID)
		}
		x.marketByID[m.ID] = i
		x.marketByCond[cond] = i
		for _, t := range m.TokenIDs {
			if _, dup := x.marketByTok[t]; dup {
				return nil, fmt.Errorf("catalog: duplicate token id %s", t)
			}
			x.marketByTok[t] = i
		}
	}
	for _, e := range c.Events {
		for _, id := range e.MarketIDs {
			i, ok := x.marketByID[id]
			if !ok || c.Markets[i].EventID != e.ID {
				return nil, fmt.Errorf("catalog: event %d lists market %d that is not its own", e.ID, id)
			}
		}
	}
	return x, nil
}

func checkMarket(m *Market) error {
	ok := false
	for _, t := range Ticks {
		if m.TickSize.Equal(t) {
			ok = true
		}
	}
	switch {
	case !ok:
		return fmt.Errorf("catalog: market %d: tick size %s is not one of 0.1, 0.01, 0.001, 0.0001", m.ID, m.TickSize)
	case m.MinOrderSize.IsNegative() || !m.MinOrderSize.Mul(decimal.NewFromInt(100)).IsInteger():
		return fmt.Errorf("catalog: market %d: minimum order size %s", m.ID, m.MinOrderSize)
	case m.TokenIDs[0] == "" || m.TokenIDs[1] == "" || m.TokenIDs[0] == m.TokenIDs[1]:
		return fmt.Errorf("catalog: market %d: token ids %q", m.ID, m.TokenIDs)
	case m.ConditionID == "":
		return fmt.Errorf("catalog: market %d: empty condition id", m.ID)
	case m.Winner < -1 || m.Winner > 1:
		return fmt.Errorf("catalog: market %d: winner %d", m.ID, m.Winner)
	case m.InitialPrice.LessThanOrEqual(decimal.Zero) || m.InitialPrice.GreaterThanOrEqual(decimal.NewFromInt(1)):
		return fmt.Errorf("catalog: market %d: initial price %s outside (0, 1)", m.ID, m.InitialPrice)
	}
	return nil
}

// at returns the element of s that index names for key.
func at[K comparable, T any](index map[K]int, s []T, key K) (*T, bool) {
	i, ok := index[key]
	if !ok {
		return nil, false
	}
	return &s[i], true
}

// MarketByID returns a market by numeric id.
func (x *Index) MarketByID(id int64) (*Market, bool) { return at(x.marketByID, x.Markets, id) }

// MarketByCondition returns a market by condition id (case-insensitive).
func (x *Index) MarketByCondition(cond string) (*Market, bool) {
	return at(x.marketByCond, x.Markets, strings.ToLower(cond))
}

// MarketByToken returns the market of a token id and the token's outcome
// index.
func (x *Index) MarketByToken(tok string) (*Market, int, bool) {
	i, ok := x.marketByTok[tok]
	if !ok {
		return nil, 0, false
	}
	m := &x.Markets[i]
	if m.TokenIDs[0] == tok {
		return m, 0, true
	}
	return m, 1, true
}

// EventByID returns an event by id.
func (x *Index) EventByID(id int64) (*Event, bool) { return at(x.eventByID, x.Events, id) }

// EventBySlug returns an event by slug.
func (x *Index) EventBySlug(slug string) (*Event, bool) { return at(x.eventBySlug, x.Events, slug) }

// SeriesByID returns a series by id.
func (x *Index) SeriesByID(id int64) (*Series, bool) { return at(x.seriesByID, x.Series, id) }

// TagByID returns a tag by id.
func (x *Index) TagByID(id int64) (*Tag, bool) { return at(x.tagByID, x.Tags, id) }

// TagBySlug returns a tag by slug.
func (x *Index) TagBySlug(slug string) (*Tag, bool) { return at(x.tagBySlug, x.Tags, slug) }

// Visible reports whether an event is visible to a creator scope: every
// event is when creator is empty, else only the creator's own
// (case-insensitive).
func Visible(e *Event, creator string) bool {
	return creator == "" || strings.EqualFold(e.Creator, creator)
}

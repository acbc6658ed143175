package exchange

import (
	"encoding/json"
	"fmt"
	"time"
)

// This file holds the catalog API's resources ({catalog_url}). Date-times
// are kept as the strings that arrived (ISO 8601 UTC, possibly empty) so that
// a decode/encode round trip is exact; ParseDate converts one when needed.

// CatalogMarket is a market as the catalog API describes it.
//
// Outcomes and ClobTokenIDs are strings whose content is a JSON-encoded array
// of strings, e.g. "[\"Yes\",\"No\"]" (the project's choice where the spec
// does not show the format); the decoder also takes a plain JSON array, as
// the live catalog sends it (catalog_decode.go). Use the Outcomes and
// TokenIDs methods to read them.
type CatalogMarket struct {
	ID               string         `json:"id"`
	Question         string         `json:"question"`
	ConditionID      string         `json:"conditionId"`
	Slug             string         `json:"slug"`
	ResolutionSource string         `json:"resolutionSource"`
	Image            string         `json:"image"`
	Icon             string         `json:"icon"`
	Description      string         `json:"description"`
	OutcomesJSON     string         `json:"outcomes"`
	ClobTokenIDsJSON string         `json:"clobTokenIds"`
	QuestionID       string         `json:"questionID"`
	StartDate        string         `json:"startDate"`
	EndDate          string         `json:"endDate"`
	CreatedAt        string         `json:"createdAt"`
	UpdatedAt        string         `json:"updatedAt"`
	Active           bool           `json:"active"`
	Closed           bool           `json:"closed"`
	Archived         bool           `json:"archived"`
	Events           []EventSummary `json:"events,omitempty"` // only in GET /markets/{id}
}

// Outcomes decodes the JSON-encoded outcome names ("" gives none).
func (m *CatalogMarket) Outcomes() ([]string, error) {
	return decodeStringArray("outcomes", m.OutcomesJSON)
}

// TokenIDs decodes the JSON-encoded outcome token ids ("" gives none).
func (m *CatalogMarket) TokenIDs() ([]string, error) {
	return decodeStringArray("clobTokenIds", m.ClobTokenIDsJSON)
}

// EncodeStringArray is the inverse of CatalogMarket.Outcomes/TokenIDs: it
// returns the JSON encoding of ss as a string, for building a CatalogMarket.
func EncodeStringArray(ss []string) string {
	if ss == nil {
		ss = []string{}
	}
	b, _ := json.Marshal(ss) // a []string always marshals
	return string(b)
}

func decodeStringArray(field, s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("exchange: catalog market %s %q is not a JSON array of strings: %w", field, clip([]byte(s), 60), err)
	}
	return out, nil
}

// EventSummary is the short form of an event, nested in markets and series.
type EventSummary struct {
	ID               string `json:"id"`
	Ticker           string `json:"ticker"`
	Slug             string `json:"slug"`
	Title            string `json:"title"`
	Description      string `json:"description"`
	ResolutionSource string `json:"resolutionSource"`
	Image            string `json:"image"`
	Icon             string `json:"icon"`
	StartDate        string `json:"startDate"`
	CreationDate     string `json:"creationDate"`
	EndDate          string `json:"endDate"`
	CreatedAt        string `json:"createdAt"`
	UpdatedAt        string `json:"updatedAt"`
	Active           bool   `json:"active"`
	Closed           bool   `json:"closed"`
	Archived         bool   `json:"archived"`
}

// Event is the full event of GET /events/{id} and GET /events/slug/{slug}.
// Items of GET /events carry the summary fields and Tags; Markets, Series
// and EventMetadata are omitted when absent. EventMetadata is kept raw (its
// contents are not specified).
type Event struct {
	EventSummary
	Tags          []Tag           `json:"tags"`
	Markets       []CatalogMarket `json:"markets,omitempty"`
	Series        []Series        `json:"series,omitempty"`
	EventMetadata json.RawMessage `json:"eventMetadata,omitempty"`
}

// Series is a series of recurring events (GET /series).
type Series struct {
	ID         string         `json:"id"`
	Ticker     string         `json:"ticker"`
	Slug       string         `json:"slug"`
	Title      string         `json:"title"`
	SeriesType string         `json:"seriesType"`
	Recurrence string         `json:"recurrence"`
	Image      string         `json:"image"`
	Icon       string         `json:"icon"`
	Active     bool           `json:"active"`
	Closed     bool           `json:"closed"`
	Archived   bool           `json:"archived"`
	CreatedAt  string         `json:"createdAt"`
	UpdatedAt  string         `json:"updatedAt"`
	Events     []EventSummary `json:"events,omitempty"` // present in the series list
}

// Tag is a catalog tag (GET /tags).
type Tag struct {
	ID                  string `json:"id"`
	Label               string `json:"label"`
	Slug                string `json:"slug"`
	CreatedAt           string `json:"createdAt"`
	UpdatedAt           string `json:"updatedAt"`
	RequiresTranslation bool   `json:"requiresTranslation"`
}

// ParseDate parses a catalog or order-book date-time string. It accepts RFC
// 3339 with or without fractional seconds, with a space for the T, an
// offset of hours only ("+00", as the live catalog writes some times), and
// a bare date (YYYY-MM-DD). An empty string gives the zero time and ok ==
// false.
func ParseDate(s string) (t time.Time, ok bool) {
	if s == "" {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z07:00", "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999Z07", "2006-01-02T15:04:05.999999999Z07", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

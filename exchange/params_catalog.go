package exchange

import (
	"net/url"
	"strconv"
)

// Catalog list bounds (spec, Endpoints).
const (
	CatalogMinLimit = 1
	CatalogMaxLimit = 500
	// CatalogDefaultLimit is the server's default limit of the lists.
	CatalogDefaultLimit = 100
)

// ListParams are the query parameters of GET /series and GET /tags.
type ListParams struct {
	Limit   *int   // 1 to 500 (default 100)
	Offset  *int   // >= 0
	Creator string // scopes results to a creator or site
}

// Validate checks every rule of the spec.
func (p *ListParams) Validate() error { _, err := p.encode(); return err }

func (p *ListParams) encode() (url.Values, error) {
	q := url.Values{}
	if err := checkIntRange(q, "limit", p.Limit, CatalogMinLimit, CatalogMaxLimit); err != nil {
		return nil, err
	}
	if err := checkIntRange(q, "offset", p.Offset, 0, noUpper); err != nil {
		return nil, err
	}
	setString(q, "creator", p.Creator)
	return q, nil
}

// EventsParams are the query parameters of GET /events.
type EventsParams struct {
	Limit      *int  // 1 to 500 (default 100)
	Offset     *int  // >= 0
	Active     *bool // filter by status
	Closed     *bool
	Archived   *bool
	Tag        string // tag slug (alias of TagSlug)
	TagID      *int64
	TagSlug    string
	SeriesSlug string
	Slug       string
	Order      string // sort column (allowed values not specified)
	Ascending  *bool  // default false
	Creator    string
}

// Validate checks every rule of the spec.
func (p *EventsParams) Validate() error { _, err := p.encode(); return err }

func (p *EventsParams) encode() (url.Values, error) {
	q := url.Values{}
	if err := checkIntRange(q, "limit", p.Limit, CatalogMinLimit, CatalogMaxLimit); err != nil {
		return nil, err
	}
	if err := checkIntRange(q, "offset", p.Offset, 0, noUpper); err != nil {
		return nil, err
	}
	setBool(q, "active", p.Active)
	setBool(q, "closed", p.Closed)
	setBool(q, "archived", p.Archived)
	setString(q, "tag", p.Tag)
	if p.TagID != nil {
		q.Set("tag_id", strconv.FormatInt(*p.TagID, 10))
	}
	setString(q, "tag_slug", p.TagSlug)
	setString(q, "series_slug", p.SeriesSlug)
	setString(q, "slug", p.Slug)
	setString(q, "order", p.Order)
	setBool(q, "ascending", p.Ascending)
	setString(q, "creator", p.Creator)
	return q, nil
}

package exchange

import (
	"context"
	"net/url"
	"strconv"
)

// creatorQuery returns the query holding creator, or nil.
func creatorQuery(creator string) url.Values {
	if creator == "" {
		return nil
	}
	return url.Values{"creator": {creator}}
}

// CatalogMarket returns one market with its events (catalog GET
// /markets/{id}); id is a numeric market id or a condition id. creator ""
// sends no scope.
func (c *Client) CatalogMarket(ctx context.Context, id, creator string) (*CatalogMarket, error) {
	if id == "" {
		return nil, &ParamError{Param: "id", Value: "", Rule: "is required"}
	}
	var out CatalogMarket
	cl := call{ep: epCatalogMarket, path: "/markets/" + url.PathEscape(id), query: creatorQuery(creator)}
	if err := c.doJSON(ctx, cl, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Event returns one event by numeric id (catalog GET /events/{id}).
func (c *Client) Event(ctx context.Context, id int64, creator string) (*Event, error) {
	if id < 0 {
		return nil, &ParamError{Param: "id", Value: strconv.FormatInt(id, 10), Rule: "must be a numeric event id >= 0"}
	}
	var out Event
	cl := call{ep: epEvent, path: "/events/" + strconv.FormatInt(id, 10), query: creatorQuery(creator)}
	if err := c.doJSON(ctx, cl, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// EventBySlug returns one event by slug (catalog GET /events/slug/{slug}).
func (c *Client) EventBySlug(ctx context.Context, slug, creator string) (*Event, error) {
	if slug == "" {
		return nil, &ParamError{Param: "slug", Value: "", Rule: "is required"}
	}
	var out Event
	cl := call{ep: epEventBySlug, path: "/events/slug/" + url.PathEscape(slug), query: creatorQuery(creator)}
	if err := c.doJSON(ctx, cl, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Series returns one page of series (catalog GET /series).
func (c *Client) Series(ctx context.Context, p ListParams) ([]Series, error) {
	q, err := p.encode()
	if err != nil {
		return nil, err
	}
	var out []Series
	if err := c.doJSON(ctx, call{ep: epSeries, path: "/series", query: q, answer: listItems(p.Limit, CatalogDefaultLimit)}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Tags returns one page of tags (catalog GET /tags).
func (c *Client) Tags(ctx context.Context, p ListParams) ([]Tag, error) {
	q, err := p.encode()
	if err != nil {
		return nil, err
	}
	var out []Tag
	if err := c.doJSON(ctx, call{ep: epTags, path: "/tags", query: q, answer: listItems(p.Limit, CatalogDefaultLimit)}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Events returns one page of events (catalog GET /events).
func (c *Client) Events(ctx context.Context, p EventsParams) ([]Event, error) {
	q, err := p.encode()
	if err != nil {
		return nil, err
	}
	var out []Event
	if err := c.doJSON(ctx, call{ep: epEvents, path: "/events", query: q, answer: listItems(p.Limit, CatalogDefaultLimit)}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

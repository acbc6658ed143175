package sim

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/exchange/sim/catalog"
)

// Catalog error texts (spec, Errors).
const (
	msgIDNotFound   = "id not found"
	msgSlugNotFound = "slug not found"
	msgQRequired    = "q is required"
)

func catalogBadRequest(w http.ResponseWriter, msg string) {
	writeError(w, "catalog", http.StatusBadRequest, exchange.TypeBadRequest, msg)
}

func catalogNotFound(w http.ResponseWriter, msg string) {
	writeError(w, "catalog", http.StatusNotFound, exchange.TypeNotFound, msg)
}

// catalogMsg strips the data API's "invalid_field: " prefix: catalog
// errors carry the type "bad request" instead.
func catalogMsg(err error) string {
	return strings.TrimPrefix(err.Error(), "invalid_field: ")
}

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func (e *Exchange) eventSummary(ev *catalog.Event) exchange.EventSummary {
	return exchange.EventSummary{
		ID: strconv.FormatInt(ev.ID, 10), Ticker: ev.Ticker, Slug: ev.Slug, Title: ev.Title, Description: ev.Description,
		ResolutionSource: ev.ResolutionSource, Image: ev.Image, Icon: ev.Icon,
		StartDate: ts(ev.StartDate), CreationDate: ts(ev.CreatedAt), EndDate: ts(ev.EndDate),
		CreatedAt: ts(ev.CreatedAt), UpdatedAt: ts(ev.CreatedAt),
		Active: ev.Active, Closed: e.eventClosed(ev), Archived: ev.Archived,
	}
}

// eventClosed: an event is closed when all its markets are.
func (e *Exchange) eventClosed(ev *catalog.Event) bool {
	if ev.Closed {
		return true
	}
	for _, id := range ev.MarketIDs {
		m, _ := e.cat.MarketByID(id)
		if s := e.byCond[strings.ToLower(m.ConditionID)]; s != nil && !s.closed {
			return false
		}
	}
	return len(ev.MarketIDs) > 0
}

func (e *Exchange) catalogMarket(m *catalog.Market, withEvents bool) exchange.CatalogMarket {
	s := e.byCond[strings.ToLower(m.ConditionID)]
	cm := exchange.CatalogMarket{
		ID: strconv.FormatInt(m.ID, 10), Question: m.Question, ConditionID: m.ConditionID, Slug: m.Slug,
		ResolutionSource: m.ResolutionSource, Image: m.Image, Icon: m.Icon, Description: m.Description,
		OutcomesJSON: exchange.EncodeStringArray(m.Outcomes[:]), ClobTokenIDsJSON: exchange.EncodeStringArray(m.TokenIDs[:]),
		QuestionID: m.QuestionID, StartDate: ts(m.StartDate), EndDate: ts(m.EndDate), CreatedAt: ts(m.CreatedAt),
		UpdatedAt: ts(m.CreatedAt), Active: m.Active, Closed: s.closed, Archived: m.Archived,
	}
	if s.closed && !s.closedAt.IsZero() {
		cm.UpdatedAt = ts(s.closedAt)
	}
	if withEvents {
		cm.Events = []exchange.EventSummary{e.eventSummary(s.ev)}
	}
	return cm
}

func (e *Exchange) tagJSON(t *catalog.Tag) exchange.Tag {
	return exchange.Tag{ID: strconv.FormatInt(t.ID, 10), Label: t.Label, Slug: t.Slug, CreatedAt: ts(t.CreatedAt),
		UpdatedAt: ts(t.CreatedAt), RequiresTranslation: t.RequiresTranslation}
}

func (e *Exchange) seriesJSON(sr *catalog.Series, events []exchange.EventSummary) exchange.Series {
	return exchange.Series{ID: strconv.FormatInt(sr.ID, 10), Ticker: sr.Ticker, Slug: sr.Slug, Title: sr.Title,
		SeriesType: sr.SeriesType, Recurrence: sr.Recurrence, Image: sr.Image, Icon: sr.Icon,
		Active: sr.Active, Closed: sr.Closed, Archived: sr.Archived, CreatedAt: ts(sr.CreatedAt), UpdatedAt: ts(sr.CreatedAt),
		Events: events}
}

// fullEvent builds an event with tags, markets, series and metadata.
func (e *Exchange) fullEvent(ev *catalog.Event) exchange.Event {
	out := exchange.Event{EventSummary: e.eventSummary(ev), Tags: []exchange.Tag{}, Markets: []exchange.CatalogMarket{}, Series: []exchange.Series{}}
	for _, id := range ev.TagIDs {
		if t, ok := e.cat.TagByID(id); ok {
			out.Tags = append(out.Tags, e.tagJSON(t))
		}
	}
	for _, id := range ev.MarketIDs {
		if m, ok := e.cat.MarketByID(id); ok {
			out.Markets = append(out.Markets, e.catalogMarket(m, false))
		}
	}
	for _, id := range ev.SeriesIDs {
		if sr, ok := e.cat.SeriesByID(id); ok {
			out.Series = append(out.Series, e.seriesJSON(sr, nil))
		}
	}
	meta := ev.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	out.EventMetadata, _ = json.Marshal(meta)
	return out
}

// GET /catalog/markets/{id}: numeric market id or condition id.
func (e *Exchange) handleCatalogMarket(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	creator := r.URL.Query().Get("creator")
	var m *catalog.Market
	var ok bool
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		m, ok = e.cat.MarketByID(n)
	} else {
		m, ok = e.cat.MarketByCondition(id)
	}
	if ok {
		ev, _ := e.cat.EventByID(m.EventID)
		ok = catalog.Visible(ev, creator)
	}
	if !ok {
		catalogNotFound(w, msgIDNotFound)
		return
	}
	e.mu.Lock()
	out := e.catalogMarket(m, true)
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// GET /catalog/events/{id}
func (e *Exchange) handleEvent(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		catalogBadRequest(w, msgQRequired)
		return
	}
	ev, ok := e.cat.EventByID(n)
	if !ok || !catalog.Visible(ev, r.URL.Query().Get("creator")) {
		catalogNotFound(w, msgIDNotFound)
		return
	}
	e.mu.Lock()
	out := e.fullEvent(ev)
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// GET /catalog/events/slug/{slug}
func (e *Exchange) handleEventBySlug(w http.ResponseWriter, r *http.Request) {
	ev, ok := e.cat.EventBySlug(r.PathValue("slug"))
	if !ok || !catalog.Visible(ev, r.URL.Query().Get("creator")) {
		catalogNotFound(w, msgSlugNotFound)
		return
	}
	e.mu.Lock()
	out := e.fullEvent(ev)
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// eventOrders are the sort columns GET /events accepts in order.
var eventOrders = []string{"id", "title", "slug", "startDate", "endDate", "createdAt"}

// GET /catalog/events
func (e *Exchange) handleEvents(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r.URL.Query())
	limit := q.intRange("limit", 100, exchange.CatalogMinLimit, exchange.CatalogMaxLimit)
	offset := q.intRange("offset", 0, 0, -1)
	active, hasActive := q.boolean("active", false)
	closed, hasClosed := q.boolean("closed", false)
	archived, hasArchived := q.boolean("archived", false)
	tagSlug := q.str("tag_slug")
	if t := q.str("tag"); t != "" {
		if tagSlug != "" && tagSlug != t {
			q.fail("invalid_field: tag: tag and tag_slug differ")
		}
		tagSlug = t
	}
	var tagID int64
	hasTagID := q.has("tag_id")
	if hasTagID {
		n, err := strconv.ParseInt(q.str("tag_id"), 10, 64)
		if err != nil {
			q.fail("invalid_field: tag_id: must be an integer")
		}
		tagID = n
	}
	seriesSlug, slug := q.str("series_slug"), q.str("slug")
	order := q.enum("order", "id", eventOrders...)
	asc, _ := q.boolean("ascending", false)
	if q.err != nil {
		catalogBadRequest(w, catalogMsg(q.err))
		return
	}
	creator := q.str("creator")
	var evs []*catalog.Event
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.cat.Events {
		ev := &e.cat.Events[i]
		switch {
		case !catalog.Visible(ev, creator),
			hasActive && ev.Active != active,
			hasClosed && e.eventClosed(ev) != closed,
			hasArchived && ev.Archived != archived,
			slug != "" && ev.Slug != slug,
			hasTagID && !containsInt(ev.TagIDs, tagID),
			tagSlug != "" && !e.hasTagSlug(ev, tagSlug),
			seriesSlug != "" && !e.inSeries(ev, seriesSlug):
			continue
		}
		evs = append(evs, ev)
	}
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := evs[i], evs[j]
		var c int
		switch order {
		case "title":
			c = strings.Compare(a.Title, b.Title)
		case "slug":
			c = strings.Compare(a.Slug, b.Slug)
		case "startDate":
			c = a.StartDate.Compare(b.StartDate)
		case "endDate":
			c = a.EndDate.Compare(b.EndDate)
		case "createdAt":
			c = a.CreatedAt.Compare(b.CreatedAt)
		}
		if c == 0 {
			c = cmpInt(a.ID, b.ID)
		}
		if !asc {
			c = -c
		}
		return c < 0
	})
	out := []exchange.Event{}
	for i := offset; i < len(evs) && len(out) < limit; i++ {
		out = append(out, e.fullEvent(evs[i]))
	}
	writeJSON(w, http.StatusOK, out)
}

func (e *Exchange) hasTagSlug(ev *catalog.Event, slug string) bool {
	t, ok := e.cat.TagBySlug(slug)
	return ok && containsInt(ev.TagIDs, t.ID)
}

func (e *Exchange) inSeries(ev *catalog.Event, slug string) bool {
	for _, id := range ev.SeriesIDs {
		if sr, ok := e.cat.SeriesByID(id); ok && sr.Slug == slug {
			return true
		}
	}
	return false
}

func containsInt(xs []int64, x int64) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// listWindow reads limit (1 to 500, default 100) and offset (>= 0).
func listWindow(w http.ResponseWriter, r *http.Request) (limit, offset int, creator string, ok bool) {
	q := newQuery(r.URL.Query())
	limit = q.intRange("limit", 100, exchange.CatalogMinLimit, exchange.CatalogMaxLimit)
	offset = q.intRange("offset", 0, 0, -1)
	if q.err != nil {
		catalogBadRequest(w, catalogMsg(q.err))
		return 0, 0, "", false
	}
	return limit, offset, q.str("creator"), true
}

// GET /catalog/series: series with at least one event visible to the
// creator (all series without one), each with its visible events.
func (e *Exchange) handleSeries(w http.ResponseWriter, r *http.Request) {
	limit, offset, creator, ok := listWindow(w, r)
	if !ok {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var all []exchange.Series
	for i := range e.cat.Series {
		sr := &e.cat.Series[i]
		evs := []exchange.EventSummary{}
		for j := range e.cat.Events {
			ev := &e.cat.Events[j]
			if containsInt(ev.SeriesIDs, sr.ID) && catalog.Visible(ev, creator) {
				evs = append(evs, e.eventSummary(ev))
			}
		}
		if creator != "" && len(evs) == 0 {
			continue
		}
		all = append(all, e.seriesJSON(sr, evs))
	}
	writeJSON(w, http.StatusOK, page(all, offset, limit))
}

// GET /catalog/tags: tags carried by an event visible to the creator (all
// tags without one).
func (e *Exchange) handleTags(w http.ResponseWriter, r *http.Request) {
	limit, offset, creator, ok := listWindow(w, r)
	if !ok {
		return
	}
	var all []exchange.Tag
	for i := range e.cat.Tags {
		t := &e.cat.Tags[i]
		used := creator == ""
		for j := range e.cat.Events {
			ev := &e.cat.Events[j]
			if !used && catalog.Visible(ev, creator) && containsInt(ev.TagIDs, t.ID) {
				used = true
			}
		}
		if used {
			all = append(all, e.tagJSON(t))
		}
	}
	writeJSON(w, http.StatusOK, page(all, offset, limit))
}

// page returns xs[offset:offset+limit], never nil.
func page[T any](xs []T, offset, limit int) []T {
	if offset >= len(xs) {
		return []T{}
	}
	return append([]T{}, xs[offset:min(len(xs), offset+limit)]...)
}

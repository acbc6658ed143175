package exchange

import "net/http"

// endpointID names one endpoint of the three APIs.
type endpointID int

const (
	epTrades endpointID = iota
	epClosedPositions
	epHolders
	epCatalogMarket
	epEvent
	epEventBySlug
	epSeries
	epTags
	epEvents
	epMarkets
	epMarket
	epSamplingMarkets
	epSimplifiedMarkets
	epBooks
	epSpreads
	epOrder
	epPlaceOrders
	epCancelOrder
	epBuilderTrades
	numEndpoints
)

// endpointSpec is what the client knows of an endpoint: where it lives,
// whether it is signed, whether it may be retried, and which rate-limit
// buckets it takes a unit from (perRequest) or one unit per item of its
// body (perItem).
type endpointSpec struct {
	area       Area
	method     string
	pattern    string
	auth       bool
	idempotent bool
	perRequest []bucketID
	perItem    []bucketID
}

// Name is the endpoint as the observer and errors name it, e.g.
// "clob POST /orders".
func (s *endpointSpec) Name() string { return string(s.area) + " " + s.method + " " + s.pattern }

// endpointSpecs is the client's endpoint table (docs/protocol.md shows it).
// Catalog GET /markets/{id} and GET /events/{id}, GET /events/slug/{slug}
// count against the "GET /markets" and "GET /events" caps and their combined
// cap: the catalog API has no market listing, and counting the single-item
// reads there can only keep the client further below the edge's limits.
var endpointSpecs = [numEndpoints]endpointSpec{
	epTrades:          {AreaData, http.MethodGet, "/trades", false, true, []bucketID{bDataGeneral, bDataTrades}, nil},
	epClosedPositions: {AreaData, http.MethodGet, "/closed-positions", false, true, []bucketID{bDataGeneral}, nil},
	epHolders:         {AreaData, http.MethodGet, "/holders", false, true, []bucketID{bDataGeneral}, nil},

	epCatalogMarket: {AreaCatalog, http.MethodGet, "/markets/{id}", false, true, []bucketID{bCatalogGeneral, bCatalogMarkets, bCatalogEventsMarkets}, nil},
	epEvent:         {AreaCatalog, http.MethodGet, "/events/{id}", false, true, []bucketID{bCatalogGeneral, bCatalogEvents, bCatalogEventsMarkets}, nil},
	epEventBySlug:   {AreaCatalog, http.MethodGet, "/events/slug/{slug}", false, true, []bucketID{bCatalogGeneral, bCatalogEvents, bCatalogEventsMarkets}, nil},
	epSeries:        {AreaCatalog, http.MethodGet, "/series", false, true, []bucketID{bCatalogGeneral}, nil},
	epTags:          {AreaCatalog, http.MethodGet, "/tags", false, true, []bucketID{bCatalogGeneral, bCatalogTags}, nil},
	epEvents:        {AreaCatalog, http.MethodGet, "/events", false, true, []bucketID{bCatalogGeneral, bCatalogEvents, bCatalogEventsMarkets}, nil},

	epMarkets:           {AreaCLOB, http.MethodGet, "/markets", false, true, []bucketID{bCLOBGeneral}, nil},
	epMarket:            {AreaCLOB, http.MethodGet, "/markets/{condition_id}", false, true, []bucketID{bCLOBGeneral}, nil},
	epSamplingMarkets:   {AreaCLOB, http.MethodGet, "/sampling-markets", false, true, []bucketID{bCLOBGeneral}, nil},
	epSimplifiedMarkets: {AreaCLOB, http.MethodGet, "/simplified-markets", false, true, []bucketID{bCLOBGeneral}, nil},
	epBooks:             {AreaCLOB, http.MethodPost, "/books", false, true, []bucketID{bCLOBGeneral, bCLOBBooks}, nil},
	epSpreads:           {AreaCLOB, http.MethodPost, "/spreads", false, true, []bucketID{bCLOBGeneral}, nil},
	epOrder:             {AreaCLOB, http.MethodGet, "/data/order/{id}", true, true, []bucketID{bCLOBGeneral}, nil},
	epPlaceOrders:       {AreaCLOB, http.MethodPost, "/orders", true, false, []bucketID{bCLOBGeneral}, []bucketID{bPostOrderBurst, bPostOrderSustained}},
	epCancelOrder:       {AreaCLOB, http.MethodDelete, "/order", true, false, []bucketID{bCLOBGeneral, bDeleteOrderBurst, bDeleteOrderSustained}, nil},
	epBuilderTrades:     {AreaCLOB, http.MethodGet, "/builder/trades", false, true, []bucketID{bCLOBGeneral}, nil},
}

// costs returns the bucket units of one call with items body items.
func (s *endpointSpec) costs(items int) []cost {
	out := make([]cost, 0, len(s.perRequest)+len(s.perItem))
	for _, b := range s.perRequest {
		out = append(out, cost{b, 1})
	}
	for _, b := range s.perItem {
		out = append(out, cost{b, items})
	}
	return out
}

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
// whether it is signed, whether it may be retried, which rate-limit buckets
// it takes a unit from (perRequest) or one unit per item of its body
// (perItem), and the largest answer body it reads (bounds.go).
type endpointSpec struct {
	area       Area
	method     string
	pattern    string
	auth       bool
	idempotent bool
	perRequest []bucketID
	perItem    []bucketID
	answer     answerBound
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
	epTrades:          {AreaData, http.MethodGet, "/trades", false, true, []bucketID{bDataGeneral, bDataTrades}, nil, answerBound{1 * kib, tradeBytes}},
	epClosedPositions: {AreaData, http.MethodGet, "/closed-positions", false, true, []bucketID{bDataGeneral}, nil, answerBound{1 * kib, closedPositionBytes}},
	epHolders:         {AreaData, http.MethodGet, "/holders", false, true, []bucketID{bDataGeneral}, nil, answerBound{1 * kib, holderBytes}},

	epCatalogMarket: {AreaCatalog, http.MethodGet, "/markets/{id}", false, true, []bucketID{bCatalogGeneral, bCatalogMarkets, bCatalogEventsMarkets}, nil, answerBound{catalogMarketBytes + 16*eventSummaryBytes, 0}},
	epEvent:         {AreaCatalog, http.MethodGet, "/events/{id}", false, true, []bucketID{bCatalogGeneral, bCatalogEvents, bCatalogEventsMarkets}, nil, answerBound{catalogEventBytes + EventMaxMarkets*catalogMarketBytes, 0}},
	epEventBySlug:   {AreaCatalog, http.MethodGet, "/events/slug/{slug}", false, true, []bucketID{bCatalogGeneral, bCatalogEvents, bCatalogEventsMarkets}, nil, answerBound{catalogEventBytes + EventMaxMarkets*catalogMarketBytes, 0}},
	epSeries:        {AreaCatalog, http.MethodGet, "/series", false, true, []bucketID{bCatalogGeneral}, nil, answerBound{1 * kib, catalogSeriesBytes}},
	epTags:          {AreaCatalog, http.MethodGet, "/tags", false, true, []bucketID{bCatalogGeneral, bCatalogTags}, nil, answerBound{1 * kib, tagBytes}},
	epEvents:        {AreaCatalog, http.MethodGet, "/events", false, true, []bucketID{bCatalogGeneral, bCatalogEvents, bCatalogEventsMarkets}, nil, answerBound{1 * kib, catalogEventBytes}},

	epMarkets:           {AreaCLOB, http.MethodGet, "/markets", false, true, []bucketID{bCLOBGeneral}, nil, answerBound{PageMaxItems*clobMarketBytes + 1*kib, 0}},
	epMarket:            {AreaCLOB, http.MethodGet, "/markets/{condition_id}", false, true, []bucketID{bCLOBGeneral}, nil, answerBound{16 * clobMarketBytes, 0}},
	epSamplingMarkets:   {AreaCLOB, http.MethodGet, "/sampling-markets", false, true, []bucketID{bCLOBGeneral}, nil, answerBound{PageMaxItems*summaryBytes + 1*kib, 0}},
	epSimplifiedMarkets: {AreaCLOB, http.MethodGet, "/simplified-markets", false, true, []bucketID{bCLOBGeneral}, nil, answerBound{PageMaxItems*summaryBytes + 1*kib, 0}},
	epBooks:             {AreaCLOB, http.MethodPost, "/books", false, true, []bucketID{bCLOBGeneral, bCLOBBooks}, nil, answerBound{1 * kib, bookBytes}},
	epSpreads:           {AreaCLOB, http.MethodPost, "/spreads", false, true, []bucketID{bCLOBGeneral}, nil, answerBound{1 * kib, spreadBytes}},
	epOrder:             {AreaCLOB, http.MethodGet, "/data/order/{id}", true, true, []bucketID{bCLOBGeneral}, nil, answerBound{256 * kib, 0}},
	epPlaceOrders:       {AreaCLOB, http.MethodPost, "/orders", true, false, []bucketID{bCLOBGeneral}, []bucketID{bPostOrderBurst, bPostOrderSustained}, answerBound{1 * kib, placementBytes}},
	epCancelOrder:       {AreaCLOB, http.MethodDelete, "/order", true, false, []bucketID{bCLOBGeneral, bDeleteOrderBurst, bDeleteOrderSustained}, nil, answerBound{16 * kib, 0}},
	epBuilderTrades:     {AreaCLOB, http.MethodGet, "/builder/trades", false, true, []bucketID{bCLOBGeneral}, nil, answerBound{PageMaxItems*builderTradeBytes + 1*kib, 0}},
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

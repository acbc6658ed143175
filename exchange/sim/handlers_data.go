package sim

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mmbot/mmbot/exchange"
	"github.com/shopspring/decimal"
)

func dataBadRequest(w http.ResponseWriter, err error) {
	writeError(w, "data", http.StatusBadRequest, "", err.Error())
}

func num(v int64) exchange.Number { return exchange.NewNumber(exchange.Fixed(v).Decimal()) }

func asset(s *mstate, outcome int) string { return s.m.ConditionID + ":" + strconv.Itoa(outcome) }

// GET /data/trades
func (e *Exchange) handleTrades(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r.URL.Query(), "limit", "offset", "takerOnly", "filterType", "filterAmount", "market", "user", "side")
	limit := q.intRange("limit", 100, 0, exchange.TradesMaxLimit)
	offset := q.intRange("offset", 0, 0, exchange.TradesMaxOffset)
	takerOnly, _ := q.boolean("takerOnly", true)
	filterType := q.enum("filterType", "", exchange.FilterCash, exchange.FilterTokens)
	filterAmount, hasAmount := q.nonNegative("filterAmount", decimal.Zero)
	if filterType != "" && !hasAmount && q.err == nil {
		q.fail("missing_field: filterAmount")
	}
	markets := q.list("market", false, true)
	user := strings.ToLower(q.str("user"))
	sideF := q.enum("side", "", string(exchange.Buy), string(exchange.Sell))
	if q.err != nil {
		dataBadRequest(w, q.err)
		return
	}
	threshold, _ := exchange.FixedRound(filterAmount, exchange.RoundTrunc)
	out := []exchange.Trade{}
	e.mu.Lock()
	skipped := 0
	for i := len(e.data.trades) - 1; i >= 0 && len(out) < limit; i-- {
		t := &e.data.trades[i]
		switch {
		case takerOnly && !t.taker,
			user != "" && t.walletL != user,
			sideF != "" && string(side(t.side)) != sideF,
			markets != nil && !contains(markets, t.s.id),
			filterType == exchange.FilterTokens && exchange.Fixed(t.size) < threshold,
			filterType == exchange.FilterCash && exchange.Fixed(t.amount) < threshold:
			continue
		}
		if skipped < offset {
			skipped++
			continue
		}
		out = append(out, e.tradeJSON(t))
	}
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (e *Exchange) tradeJSON(t *tradeRec) exchange.Trade {
	name := ""
	if a := e.accts.byWallet[t.walletL]; a != nil {
		name = a.label
	}
	return exchange.Trade{
		ProxyWallet: t.wallet, Side: side(t.side), Asset: asset(t.s, t.outcome), ConditionID: t.s.m.ConditionID,
		Size: num(t.size), Price: num(t.price), Timestamp: t.time.Unix(), UsdcSize: num(t.amount),
		Title: t.s.m.Question, Slug: t.s.m.Slug, Icon: t.s.m.Icon, EventSlug: t.s.ev.Slug,
		Outcome: t.s.m.Outcomes[t.outcome], OutcomeIndex: t.outcome, Name: name, Pseudonym: name,
		TransactionHash: t.tx,
	}
}

// GET /data/closed-positions
func (e *Exchange) handleClosedPositions(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r.URL.Query(), "user", "market", "title", "limit", "offset", "sortBy", "sortDirection")
	user := strings.ToLower(q.required("user"))
	markets := q.list("market", false, true)
	title := q.str("title")
	if utf8.RuneCountInString(title) > exchange.ClosedPositionsMaxTitle {
		q.fail("invalid_field: title: must be at most %d characters", exchange.ClosedPositionsMaxTitle)
	}
	limit := q.intRange("limit", 10, 0, exchange.ClosedPositionsMaxLimit)
	offset := q.intRange("offset", 0, 0, exchange.ClosedPositionsMaxOffset)
	sortBy := q.enum("sortBy", exchange.SortRealizedPnl, exchange.SortRealizedPnl, exchange.SortTitle, exchange.SortPrice, exchange.SortAvgPrice, exchange.SortTimestamp)
	dir := q.enum("sortDirection", exchange.SortDesc, exchange.SortAsc, exchange.SortDesc)
	if q.err != nil {
		dataBadRequest(w, q.err)
		return
	}
	e.mu.Lock()
	var recs []closedRec
	lt := strings.ToLower(title)
	for _, c := range e.data.closed[user] {
		if markets != nil && !contains(markets, c.s.id) {
			continue
		}
		if lt != "" && !strings.Contains(strings.ToLower(c.s.m.Question), lt) {
			continue
		}
		recs = append(recs, c)
	}
	e.mu.Unlock()
	key := func(c *closedRec) decimal.Decimal {
		switch sortBy {
		case exchange.SortPrice:
			return exchange.Fixed(c.curPrice).Decimal()
		case exchange.SortAvgPrice:
			return avgPrice(c)
		case exchange.SortTimestamp:
			return decimal.NewFromInt(c.time.UnixNano())
		}
		return exchange.Fixed(c.realized).Decimal()
	}
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := &recs[i], &recs[j]
		var c int
		if sortBy == exchange.SortTitle {
			c = strings.Compare(a.s.m.Question, b.s.m.Question)
		} else {
			c = key(a).Cmp(key(b))
		}
		if dir == exchange.SortDesc {
			c = -c
		}
		return c < 0
	})
	out := []exchange.ClosedPosition{}
	for i := offset; i < len(recs) && len(out) < limit; i++ {
		out = append(out, closedJSON(&recs[i]))
	}
	writeJSON(w, http.StatusOK, out)
}

func avgPrice(c *closedRec) decimal.Decimal {
	if c.bought == 0 {
		return decimal.Zero
	}
	return decimal.NewFromInt(c.boughtCost).Div(decimal.NewFromInt(c.bought)).Round(6)
}

func closedJSON(c *closedRec) exchange.ClosedPosition {
	s, o := c.s, c.outcome
	pct := decimal.Zero
	if c.boughtCost > 0 {
		pct = decimal.NewFromInt(c.realized).Mul(decimal.NewFromInt(100)).Div(decimal.NewFromInt(c.boughtCost)).Round(4)
	}
	return exchange.ClosedPosition{
		ProxyWallet: c.wallet, Asset: asset(s, o), ConditionID: s.m.ConditionID, Title: s.m.Question,
		Slug: s.m.Slug, Icon: s.m.Icon, EventSlug: s.ev.Slug, Outcome: s.m.Outcomes[o],
		OppositeOutcome: s.m.Outcomes[1-o], OppositeAsset: asset(s, 1-o),
		Size: num(c.bought), AvgPrice: exchange.NewNumber(avgPrice(c)), InitialValue: num(c.boughtCost),
		CurrentValue: num(0), CashPnl: num(c.realized), TotalBought: num(c.bought), RealizedPnl: num(c.realized),
		PercentPnl: exchange.NewNumber(pct), PercentRealizedPnl: exchange.NewNumber(pct), CurPrice: num(c.curPrice),
		OutcomeIndex: o, Timestamp: c.time.Unix(), EndDate: isoTime(s.m.EndDate),
	}
}

// GET /data/holders
func (e *Exchange) handleHolders(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r.URL.Query(), "market", "limit", "minBalance")
	markets := q.list("market", true, true)
	limit := q.intRange("limit", 100, 0, exchange.HoldersMaxLimit)
	minBal, _ := q.nonNegative("minBalance", decimal.NewFromInt(1))
	if q.err != nil {
		dataBadRequest(w, q.err)
		return
	}
	threshold, _ := exchange.FixedRound(minBal, exchange.RoundTrunc)
	out := []exchange.HolderGroup{}
	e.mu.Lock()
	for _, id := range markets {
		s, ok := e.byCond[id]
		if !ok {
			continue
		}
		for o, tok := range s.m.TokenIDs {
			type hb struct {
				id  string
				bal int64
			}
			var hs []hb
			e.eng.Holders(tok, func(acct string, bal int64) {
				if exchange.Fixed(bal) >= threshold {
					hs = append(hs, hb{acct, bal})
				}
			})
			sort.Slice(hs, func(i, j int) bool {
				if hs[i].bal != hs[j].bal {
					return hs[i].bal > hs[j].bal
				}
				return hs[i].id < hs[j].id
			})
			g := exchange.HolderGroup{Token: asset(s, o), Holders: []exchange.Holder{}}
			for _, h := range hs[:min(len(hs), limit)] {
				name := ""
				if a := e.accts.byWallet[h.id]; a != nil {
					name = a.label
				}
				g.Holders = append(g.Holders, exchange.Holder{
					ProxyWallet: e.display(h.id), Asset: asset(s, o), Name: name, Pseudonym: name,
					Amount: num(h.bal), DisplayUsernamePublic: name != "", OutcomeIndex: o,
				})
			}
			out = append(out, g)
		}
	}
	e.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

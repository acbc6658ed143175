package report

import (
	"encoding/json"
	"io"
	"time"

	"github.com/mmbot/mmbot/backtest/accounting"
	"github.com/shopspring/decimal"
)

// runJSON is the JSON form of a run (WriteJSON).
type runJSON struct {
	Data        string              `json:"data"`
	Strategy    string              `json:"strategy"`
	Start       time.Time           `json:"start"`
	End         time.Time           `json:"end"`
	Mode        string              `json:"fill_mode"`
	Queue       string              `json:"queue_model"`
	Latency     string              `json:"latency"`
	Fees        string              `json:"fees"`
	Seed        uint64              `json:"seed"`
	Results     accounting.Headline `json:"results"`
	Tokens      []tokenJSON         `json:"tokens"`
	Markouts    []markoutJSON       `json:"markouts"`
	MidMarkouts []markoutJSON       `json:"mid_markouts"`
	Rates       []rateJSON          `json:"rate_caps"`
}

type tokenJSON struct {
	Token      string           `json:"token"`
	PnL        decimal.Decimal  `json:"pnl"`
	SpreadPnL  decimal.Decimal  `json:"spread_pnl"`
	Fills      int              `json:"fills"`
	Position   decimal.Decimal  `json:"position"`
	MaxAbsPos  decimal.Decimal  `json:"max_abs_position"`
	MeanAbsPos accounting.Ratio `json:"mean_abs_position"`
	Mark       decimal.Decimal  `json:"mark"`
	Resolved   bool             `json:"resolved"`
}

type markoutJSON struct {
	Horizon    string           `json:"horizon"`
	Count      int              `json:"fills"`
	Mean       accounting.Ratio `json:"mean"`
	Median     accounting.Ratio `json:"median"`
	SizeWeight accounting.Ratio `json:"size_weighted"`
}

type rateJSON struct {
	Name   string `json:"name"`
	Window string `json:"window"`
	Peak   int    `json:"peak"`
	Cap    int    `json:"cap"`
	Total  int    `json:"total"`
}

// WriteJSON writes r's run description, headline figures, per-token
// summaries, markouts and rate-cap use as one JSON object (no time series).
// For a run read from the order journal the object has "source":
// "journal", the journal, the marks, the figures the journal gives, and
// the markets and tokens.
func WriteJSON(w io.Writer, r *accounting.Results) error {
	if journal(r) {
		return writeJournalJSON(w, r)
	}
	out := runJSON{Data: r.Run.Data, Strategy: r.Run.Strategy, Start: r.Start.UTC(), End: r.End.UTC(), Mode: r.Run.Mode.String(),
		Queue: r.Run.Queue.String(), Latency: r.Run.Latency.String(), Fees: r.Run.Fees.String(), Seed: r.Run.Seed,
		Results: accounting.HeadlineOf(r), Tokens: []tokenJSON{}, Markouts: []markoutJSON{}, MidMarkouts: []markoutJSON{}}
	for _, t := range r.Tokens {
		out.Tokens = append(out.Tokens, tokenJSON{Token: t.TokenID, PnL: t.PnL, SpreadPnL: t.SpreadPnL, Fills: t.Fills, Position: t.Position,
			MaxAbsPos: t.MaxAbsPos, MeanAbsPos: accounting.Ratio(t.MeanAbsPos), Mark: t.LastMid, Resolved: t.Resolved})
	}
	for _, m := range r.Markouts {
		out.Markouts = append(out.Markouts, markoutJSON{Horizon: m.Horizon.String(), Count: m.Count, Mean: accounting.Ratio(m.Mean),
			Median: accounting.Ratio(m.Median), SizeWeight: accounting.Ratio(m.SizeWeight)})
	}
	for _, m := range r.MidMarkouts {
		out.MidMarkouts = append(out.MidMarkouts, markoutJSON{Horizon: m.Horizon.String(), Count: m.Count, Mean: accounting.Ratio(m.Mean),
			Median: accounting.Ratio(m.Median), SizeWeight: accounting.Ratio(m.SizeWeight)})
	}
	out.Rates = ratesJSON(r)
	return encodeJSON(w, out)
}

func ratesJSON(r *accounting.Results) []rateJSON {
	out := []rateJSON{}
	for _, u := range r.Rates {
		out = append(out, rateJSON{Name: u.Name, Window: accounting.WindowLabel(u.Window), Peak: u.Peak, Cap: u.Cap, Total: u.Total})
	}
	return out
}

func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

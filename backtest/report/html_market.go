package report

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/accounting"
)

// htmlMarket is one market of the HTML report: its outcomes under its
// question (or its name), with the market's net position.
type htmlMarket struct {
	Title  string      // the question where known, else the market's name
	Sub    string      // "market <name>" under a question
	Rows   [][2]string // net position, PnL, fills; nil for a token without a market
	Tokens []htmlToken
}

// htmlMarkets groups the token sections of r by market (RunInfo.Markets),
// in the order of markets(): YES before NO. A token without a market is a
// section of its own, headed by its label.
func htmlMarkets(r *accounting.Results) []htmlMarket {
	var out []htmlMarket
	for _, m := range markets(r) {
		hm := htmlMarket{Title: m.name}
		grouped := r.Run.Markets[m.tokens[0].TokenID] != ""
		if q := r.Run.Questions[m.name]; q != "" && grouped {
			hm.Title, hm.Sub = q, "market "+m.name
		}
		if grouped {
			hm.Rows = [][2]string{
				{"net position", netPosition(r, &m)},
				{"PnL", money(m.sum.PnL)},
				{"fills", fmt.Sprint(m.sum.Fills)},
			}
			if !journal(r) {
				hm.Rows = append(hm.Rows, [2]string{"from spread", money(m.sum.SpreadPnL)})
			}
		}
		for _, tok := range m.tokens {
			h := tokenSection(r, tok)
			if grouped {
				h.Outcome = outcome(r, tok.TokenID)
			}
			hm.Tokens = append(hm.Tokens, h)
		}
		out = append(out, hm)
	}
	return out
}

// netPosition is a market's position net of the shares held on both
// sides (a YES and a NO share together pay 1 whatever the outcome):
// "12 YES (YES 20, NO 8)", "flat (YES 5, NO 5)". A market whose outcomes
// are not YES and NO lists each outcome's position.
func netPosition(r *accounting.Results, m *market) string {
	var yes, no decimal.Decimal
	var parts []string
	binary := 0
	for _, t := range m.tokens {
		o := outcome(r, t.TokenID)
		parts = append(parts, o+" "+money(t.Position))
		switch o {
		case "YES":
			yes, binary = t.Position, binary+1
		case "NO":
			no, binary = t.Position, binary+1
		}
	}
	list := strings.Join(parts, ", ")
	if binary != 2 || len(m.tokens) != 2 {
		return list
	}
	switch net := yes.Sub(no); {
	case net.IsPositive():
		return money(net) + " YES (" + list + ")"
	case net.IsNegative():
		return money(net.Neg()) + " NO (" + list + ")"
	}
	return "flat (" + list + ")"
}

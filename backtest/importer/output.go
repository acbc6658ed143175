package importer

import (
	"fmt"
	"time"

	"github.com/mmbot/mmbot/backtest/recording"
)

// write is the last stage: events leave the reorder window here in time
// order. Before a token's first event it writes the token's terms (and,
// for a known market, every token's, YES first, so that a replay tells
// the outcomes apart), then the event, and counts both.
func (im *importer) write(e recording.Event) error {
	if tok := e.TokenID(); tok != "" && !im.introduced[tok] {
		if err := im.introduce(tok, eventMarket(e), e.Time()); err != nil {
			return err
		}
	}
	return im.put(e)
}

// put writes e to the sink and counts it.
func (im *importer) put(e recording.Event) error {
	if err := im.sink.Write(e); err != nil {
		return err
	}
	t := e.Time()
	if im.st.Events == 0 {
		im.st.First = t
	}
	im.st.Last = t
	im.st.Events++
	switch e.Kind {
	case recording.KindBook:
		im.st.Books++
	case recording.KindTrade:
		im.st.Trades++
	case recording.KindMeta:
		im.st.Metas++
	}
	return nil
}

// introduce writes the terms of token's market before its first event at
// time at: one meta per token of a known market (in outcome order), else
// one for token when Options.Terms has any.
func (im *importer) introduce(token, market string, at time.Time) error {
	tokens := []string{token}
	cond := market
	var question, slug string
	if km := im.known.market(token, market); km != nil && containsString(km.Tokens, token) {
		tokens, cond, question, slug = km.Tokens, km.ConditionID, km.Question, km.Slug
	}
	t := im.terms(token, cond)
	if len(tokens) == 1 && t.IsZero() {
		im.introduced[token] = true
		return nil
	}
	if err := checkTerms(t); err != nil {
		return fmt.Errorf("market %s: %w", cond, err)
	}
	for _, tok := range tokens {
		if im.introduced[tok] {
			continue
		}
		im.introduced[tok] = true
		m := &recording.Meta{Stamp: recording.Stamp{Exchange: at}, TokenID: tok, Market: cond, TickSize: t.Tick, MinOrderSize: t.MinSize,
			EndDate: t.EndDate, RewardMaxSpread: t.Rewards.MaxSpread, RewardMinSize: t.Rewards.MinSize, RewardDailyRate: t.Rewards.DailyRate,
			SecondsDelay: t.SecondsDelay, NegRisk: t.NegRisk, Question: question, Slug: slug}
		if err := im.put(recording.MetaEvent(m)); err != nil {
			return err
		}
	}
	return nil
}

// eventMarket is the condition id an event names ("" when none).
func eventMarket(e recording.Event) string {
	switch {
	case e.Kind == recording.KindBook && e.Book != nil:
		return e.Book.Market
	case e.Kind == recording.KindTrade && e.Trade != nil:
		return e.Trade.Market
	case e.Kind == recording.KindMeta && e.Meta != nil:
		return e.Meta.Market
	}
	return ""
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

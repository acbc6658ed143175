package daemon

import (
	"fmt"
	"io"

	"github.com/mmbot/mmbot/assemble"
	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/backtest/paper"
	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/signer"
	"github.com/mmbot/mmbot/strategy"
	"github.com/mmbot/mmbot/strategy/loop"
)

// Paper trading (`mmbot run --dry-run`): the daemon runs as usual, with
// three differences, all decided here.
//
//   - The account is a throwaway: a key and API credentials generated in
//     memory from a fixed seed, so no key or credential has to be configured
//     and the paper journal belongs to the same address on every run. The
//     orders it signs never leave the process, and the client gets no
//     authenticator at all, so it cannot make an authenticated call.
//   - The journal is its own file, state.path + ".paper": a paper session
//     never touches the live journal (which belongs to another address
//     anyway), and `mmbot orders --state <path>.paper` lists paper orders.
//   - The loop's venue is a paper.Venue over the client: live books
//     and trades, fills from the backtest's fill model with the [backtest]
//     fill_model and latencies.

// authFor returns the client's authenticator: none in a dry run.
func (d *Daemon) authFor(l2 *signer.L2) exchange.Authenticator {
	if d.opt.dryRun || l2 == nil {
		return nil
	}
	return l2
}

// statePath is the journal's path: state.path, or state.path + ".paper" in
// a dry run.
func (d *Daemon) statePath() string {
	if d.opt.dryRun {
		return d.cfg.State.Path + ".paper"
	}
	return d.cfg.State.Path
}

// venue returns the loop's venue: the client, or in a dry run a paper venue
// reading through it.
func (d *Daemon) venue(markets []strategy.Market) (loop.Venue, error) {
	if !d.opt.dryRun {
		return d.client, nil
	}
	mc, err := assemble.PaperMatcherConfig(&d.cfg.Backtest)
	if err != nil {
		return nil, err
	}
	pms := make([]paper.Market, 0, len(markets))
	for _, m := range markets {
		terms, err := fillmodel.NewRewardTerms(m.Rewards.MaxSpread, m.Rewards.MinSize, m.Rewards.DailyRate)
		if err != nil {
			return nil, fmt.Errorf("market %s: %w", m.ConditionID, err)
		}
		pms = append(pms, paper.Market{ConditionID: m.ConditionID, Tokens: m.TokenIDs, Tick: m.Tick, MinSize: m.MinSize, Delay: m.PlacementDelay, Rewards: terms})
	}
	pv, err := paper.NewVenue(d.client, paper.Config{Markets: pms, Matcher: mc, MaxBatch: d.cfg.Exchange.MaxBatch})
	if err != nil {
		return nil, err
	}
	d.paper = pv
	d.log.Warn().Str("fill_mode", mc.Mode.String()).Str("queue", mc.Queue.String()).Str("latency", paperLatency(mc.Latency)).
		Str("journal", d.statePath()).Msg("paper trading (--dry-run): live books and trades, fills simulated locally; no order leaves the process")
	return pv, nil
}

// paperLatency describes the simulated latencies (the data's is real).
func paperLatency(l fillmodel.Latency) string {
	return "order " + l.Order.String() + ", cancel " + l.Cancel.String()
}

// paperSummary adds the paper session's lines to the summary.
func (d *Daemon) paperSummary(w io.Writer) {
	if d.paper == nil {
		return
	}
	mc := d.paper.Config().Matcher
	s := d.paper.Stats()
	fmt.Fprintf(w, "  PAPER RUN (--dry-run): nothing was sent to the exchange; fills simulated, fill mode %s (%s), latency %s\n",
		mc.Mode, mc.Queue, paperLatency(mc.Latency))
	fmt.Fprintf(w, "  virtual orders %d (refused %d), cancels %d, fills %d (taker %d), %s shares for %s; fed %d books, %d trades\n",
		s.Placed, s.Refused, s.Cancels, s.Fills, s.TakerFills, s.FilledSize, s.FilledNotional.StringFixed(2), s.Books, s.Trades)
	if s.RewardSamples > 0 {
		share := 0.0
		if s.Reward.Total > 0 {
			share = s.Reward.Ours / s.Reward.Total
		}
		fmt.Fprintf(w, "  virtual liquidity rewards %s earned (%.2f%% of the score, %d samples)\n", s.Reward.Earned, 100*share, s.RewardSamples)
	}
	if s.TradeGaps > 0 || s.TradeReadErrors > 0 || s.BadEvents > 0 {
		fmt.Fprintf(w, "  fill model inputs: %d tape reads failed, %d may have missed trades, %d events unusable\n",
			s.TradeReadErrors, s.TradeGaps, s.BadEvents)
	}
}

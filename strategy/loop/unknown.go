package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/mmbot/mmbot/exchange"
)

// OrderFinder lists the ids of orders the account has placed, as far as the
// exchange lets one see them. The service interface has no "my open orders"
// endpoint; the daemon's finder reads the builder-trade history, so it finds
// only orders that have traded. It is optional (Config.Finder).
type OrderFinder interface {
	FindOrders(ctx context.Context) ([]string, error)
}

// UnknownPolicy says what Start does with a live order on the exchange that
// the journal does not know.
type UnknownPolicy string

// Policies for unknown orders.
const (
	UnknownReport UnknownPolicy = "report" // log it and leave it alone
	UnknownCancel UnknownPolicy = "cancel" // cancel it
	UnknownAdopt  UnknownPolicy = "adopt"  // journal it and manage it like our own
)

// handleUnknown runs the finder and applies the policy to every live order
// the journal does not know. It runs inside Start, after reconciliation.
func (l *Loop) handleUnknown(ctx context.Context, batch *Batch, rep *CycleReport) error {
	if l.cfg.Finder == nil {
		return nil
	}
	ids, err := l.cfg.Finder.FindOrders(ctx)
	if err != nil {
		l.log.Warn().Err(err).Msg("could not look for orders the journal does not know")
		return nil
	}
	known, err := l.journalHashes()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if known[strings.ToLower(id)] {
			continue
		}
		if _, ok := l.orders[id]; ok {
			continue
		}
		eo, err := l.venue.Order(ctx, id)
		if err != nil {
			continue
		}
		if err := l.applyUnknown(ctx, id, eo, batch, rep); err != nil {
			return err
		}
	}
	return nil
}

// applyUnknown applies the policy to an order the journal does not know,
// read back as eo: nothing unless it is live.
func (l *Loop) applyUnknown(ctx context.Context, id string, eo *exchange.Order, batch *Batch, rep *CycleReport) error {
	if !strings.EqualFold(eo.Status, exchange.StatusLive) {
		return nil
	}
	remaining := eo.OriginalSize.Sub(eo.SizeMatched)
	ev := l.log.Warn().Str("order", short(id)).Str("token", short(eo.AssetID)).Str("side", string(eo.Side)).
		Str("price", eo.Price.String()).Str("remaining", remaining.String())
	ref, inMarket := l.byToken[eo.AssetID]
	switch {
	case l.cfg.Unknown == UnknownCancel || (l.cfg.Unknown == UnknownAdopt && !inMarket):
		ev.Msg("live order unknown to the journal: cancelling it")
		if _, err := l.venue.CancelOrder(ctx, id); err != nil {
			l.log.Warn().Str("order", short(id)).Err(err).Msg("cancelling the unknown order failed")
		}
	case l.cfg.Unknown == UnknownAdopt:
		ev.Msg("live order unknown to the journal: adopting it")
		in := Intent{Hash: id, ConditionID: l.markets[ref.market].m.ConditionID, TokenID: eo.AssetID, Outcome: ref.outcome,
			Side: eo.Side, Price: eo.Price, Size: eo.OriginalSize, OrderType: exchange.GTC}
		if err := l.journal.RecordIntents([]Intent{in}, batch.Now); err != nil {
			return fmt.Errorf("adopt order %s: %w", short(id), err)
		}
		st := stateOf(eo.Status, eo.SizeMatched, eo.OriginalSize)
		l.orders[id] = &liveOrder{JournaledOrder: JournaledOrder{Intent: in, ExchangeID: id, State: st, SizeMatched: eo.SizeMatched,
			CreatedAt: batch.Now}, market: ref.market, lastRead: batch.Now}
		batch.Sent = append(batch.Sent, id)
		batch.Updates = append(batch.Updates, Update{Hash: id, ExchangeID: id, State: st, SizeMatched: eo.SizeMatched})
	default:
		ev.Msg("live order unknown to the journal (state.unknown_orders = report: left alone)")
	}
	rep.Rejected = append(rep.Rejected, "unknown_order")
	return nil
}

// journalHashes is the set of hashes and exchange ids of the orders the loop
// tracks (every non-final journaled order), lower-cased. A final journaled
// order cannot be live on the exchange, so it needs no entry.
func (l *Loop) journalHashes() (map[string]bool, error) {
	out := map[string]bool{}
	for h, lo := range l.orders {
		out[strings.ToLower(h)] = true
		if lo.ExchangeID != "" {
			out[strings.ToLower(lo.ExchangeID)] = true
		}
	}
	return out, nil
}

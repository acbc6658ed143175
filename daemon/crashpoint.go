//go:build mmbot_crashpoint

package daemon

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mmbot/mmbot/exchange"
	"github.com/mmbot/mmbot/strategy/loop"
)

// A crash point is a test hook: the environment variable MMBOT_CRASHPOINT
// makes the daemon SIGKILL itself at an exact instant, so that the crash
// test reaches the two windows a random kill rarely hits:
//
//	after-intents:N  right after the Nth intents commit, before the send
//	after-send:N     right after the Nth POST /orders returns, before its
//	                 results are journaled
//
// Unset, nothing is wrapped and nothing is counted. This file is built only
// with the tag mmbot_crashpoint (the crash tests build the binary with it);
// the release build has crashpoint_off.go, and its binary does not know the
// variable. docs/operations.md mentions it; it is not for production use.
const crashpointEnv = "MMBOT_CRASHPOINT"

// crashpoint is a parsed MMBOT_CRASHPOINT.
type crashpoint struct {
	afterIntents int // 0: off
	afterSend    int
	kill         func() // SIGKILLs the process; tests replace it
}

// parseCrashpoint parses the variable's value; empty means no crash point.
func parseCrashpoint(s string) (crashpoint, error) {
	cp := crashpoint{kill: killSelf}
	if s == "" {
		return cp, nil
	}
	name, num, ok := strings.Cut(s, ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 {
		return cp, fmt.Errorf("%s=%q: want after-intents:N or after-send:N with N >= 1", crashpointEnv, s)
	}
	switch name {
	case "after-intents":
		cp.afterIntents = n
	case "after-send":
		cp.afterSend = n
	default:
		return cp, fmt.Errorf("%s=%q: unknown crash point %q (after-intents or after-send)", crashpointEnv, s, name)
	}
	return cp, nil
}

// ConfigEnviron is environ without the crash-point variable, which is
// not a configuration key (configs.Load refuses unknown MMBOT_ names).
func ConfigEnviron(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, crashpointEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// killSelf ends the process the way a crash would: no deferred function,
// no shutdown, no journal close.
func killSelf() {
	_ = syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
	time.Sleep(time.Minute) // the signal is on its way; never return
}

// crashpointFrom reads the crash point of the environment.
func crashpointFrom(getenv func(string) string) (crashpoint, error) {
	return parseCrashpoint(getenv(crashpointEnv))
}

// journal wraps j when an intents crash point is set.
func (cp crashpoint) journal(j loop.Journal) loop.Journal {
	if cp.afterIntents == 0 {
		return j
	}
	return &crashJournal{Journal: j, at: int64(cp.afterIntents), kill: cp.kill}
}

// venue wraps v when a send crash point is set.
func (cp crashpoint) venue(v loop.Venue) loop.Venue {
	if cp.afterSend == 0 {
		return v
	}
	return &crashVenue{Venue: v, at: int64(cp.afterSend), kill: cp.kill}
}

type crashJournal struct {
	loop.Journal
	n    atomic.Int64
	at   int64
	kill func()
}

func (j *crashJournal) RecordIntents(in []loop.Intent, now time.Time) error {
	err := j.Journal.RecordIntents(in, now)
	if err == nil && len(in) > 0 && j.n.Add(1) == j.at {
		j.kill()
	}
	return err
}

type crashVenue struct {
	loop.Venue
	n    atomic.Int64
	at   int64
	kill func()
}

func (v *crashVenue) PlaceOrders(ctx context.Context, items []exchange.PlacementItem) ([]exchange.PlacementResult, error) {
	res, err := v.Venue.PlaceOrders(ctx, items)
	if v.n.Add(1) == v.at {
		v.kill()
	}
	return res, err
}

// The crash-point wrappers (a test hook) pass the optional parts on.

func (j *crashJournal) Order(hash string) (loop.JournaledOrder, bool, error) {
	if lk, ok := j.Journal.(loop.OrderLookup); ok {
		return lk.Order(hash)
	}
	return loop.JournaledOrder{}, false, nil
}

func (j *crashJournal) TradeCursor() (time.Time, error) {
	if cr, ok := j.Journal.(loop.TradeCursorReader); ok {
		return cr.TradeCursor()
	}
	return time.Time{}, nil
}

func (v *crashVenue) ReadBudget(now time.Time) int {
	if rb, ok := v.Venue.(loop.ReadBudgeter); ok {
		return rb.ReadBudget(now)
	}
	return 1 << 30
}

func (j *crashJournal) OpenTrades() ([]loop.TradeUpdate, error) {
	if sj, ok := j.Journal.(loop.SettlementJournal); ok {
		return sj.OpenTrades()
	}
	return nil, nil
}

func (j *crashJournal) TradeStatus(tradeID, orderHash string) (string, bool, error) {
	if sj, ok := j.Journal.(loop.SettlementJournal); ok {
		return sj.TradeStatus(tradeID, orderHash)
	}
	return "", false, nil
}

package loop

import (
	"time"
)

// MsgAutoCleared is the message of the one log line per automatic clear of
// the kill switch (risk.KillConfig.AutoClearAfter).
const MsgAutoCleared = "kill switch cleared by itself: the exchange has answered normally long enough since a trip caused by its absence"

// MsgAutoClearCapped is the message of the one log line per trip that would
// have cleared by itself but for the day's cap.
const MsgAutoClearCapped = "kill switch stays tripped: the automatic clears of the day are used up; an operator must reset it"

// autoClear lets the kill switch clear a trip caused by the exchange being
// away once the exchange has answered normally long enough (the cycle's
// reads tell it, risk.KillSwitch.OnExchange); each clear is logged and
// counted (Tally.AutoClears), and so is the day's cap when it holds a
// trip.
func (l *Loop) autoClear(now time.Time) {
	if l.cfg.Kill == nil {
		return
	}
	r := l.cfg.Kill.AutoClear(now)
	switch {
	case r.Capped:
		l.log.Error().Msg(MsgAutoClearCapped)
	case r.Cleared.Reason != 0:
		l.tally.AutoClears++
		l.log.Warn().Str("reason", r.Cleared.Reason.String()).Str("detail", r.Cleared.Detail).
			Dur("tripped_for", now.Sub(r.Cleared.At)).Int("clears_left_today", r.ClearsLeft).Msg(MsgAutoCleared)
	}
}

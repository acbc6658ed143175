package loop

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mmbot/mmbot/exchange"
)

// tallyEvery is how often an errTally logs a summary of the repeats it
// counted (when there were any).
const tallyEvery = time.Minute

// errTally keeps a repeated error to one log line per distinct error: the
// first occurrence of each is logged by the caller, the later ones are only
// counted, and a summary line per error with its count is logged every
// tallyEvery (on the next add) and at flush. It is safe for concurrent use
// (the loop's fan-out and its guard add from their own goroutines).
type errTally struct {
	log zerolog.Logger
	msg string // the summary line's message

	mu    sync.Mutex
	byKey map[string]*errCount
	keys  []string // in order of first occurrence
	since time.Time
}

type errCount struct {
	fields map[string]any // the summary line's fields besides the counts
	total  int
	unsaid int // counted since the last summary of this error
}

// add counts one occurrence of the error named key and reports whether it
// is the first (the caller logs it then). fields are logged with the
// summaries of key.
func (t *errTally) add(key string, fields map[string]any, now time.Time) (first bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byKey == nil {
		t.byKey, t.since = map[string]*errCount{}, now
	}
	c := t.byKey[key]
	if c == nil {
		c = &errCount{fields: fields}
		t.byKey[key] = c
		t.keys = append(t.keys, key)
		first = true
	} else {
		c.unsaid++
	}
	c.total++
	if now.Sub(t.since) >= tallyEvery {
		t.summarizeLocked(now)
	}
	return first
}

// flush logs the summary of every error counted since its last summary.
func (t *errTally) flush(now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.summarizeLocked(now)
}

func (t *errTally) summarizeLocked(now time.Time) {
	for _, k := range t.keys {
		c := t.byKey[k]
		if c.unsaid == 0 {
			continue
		}
		t.log.Warn().Fields(c.fields).Int("again", c.unsaid).Int("total", c.total).
			Str("over", now.Sub(t.since).Round(time.Second).String()).Msg(t.msg)
		c.unsaid = 0
	}
	t.since = now
}

// errKey names a distinct error for an errTally: the status and message of
// the exchange's answer, or the error's text.
func errKey(err error) string {
	var ae *exchange.APIError
	if errors.As(err, &ae) {
		return fmt.Sprintf("HTTP %d %s", ae.Status, answerText(ae))
	}
	return err.Error()
}

// answerText is what the exchange said in an error answer: its message (and
// type), or the start of its body.
func answerText(ae *exchange.APIError) string {
	switch {
	case ae.Type != "" && ae.Message != "":
		return ae.Type + ": " + ae.Message
	case ae.Message != "" || ae.Type != "":
		return ae.Message + ae.Type
	case ae.Body != "":
		b := ae.Body
		if len(b) > 200 {
			b = b[:200] + "…"
		}
		return fmt.Sprintf("%q", b)
	}
	return "empty body"
}

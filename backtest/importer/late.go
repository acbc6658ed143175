package importer

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mmbot/mmbot/backtest/recording"
)

// An update of a token's book (a price_change, or a book snapshot) can
// arrive dated before the book it follows: the exchange stamps messages as
// it builds them, not as it sends them. Written at its own time, the
// reorder window would sort its book before the one it follows, and the
// replay would undo the update until the token's next book. The importer
// applies updates in the order they came, so it writes such an update's
// book at the time of the book it follows, counts it and warns, per
// market, with how far before that book the latest one was dated.

// lateUpdates counts the late updates of one market.
type lateUpdates struct {
	market string // condition id, or "" with token set
	token  string
	n      int
	max    time.Duration // the largest inversion
}

// inOrder returns the stamp to write token's next book at: st, or the time
// of the token's last book when st is before it (counted).
func (im *importer) inOrder(token, market string, st recording.Stamp) recording.Stamp {
	last, ok := im.lastBook[token]
	if ok && st.Exchange.Before(last) {
		key := strings.ToLower(market)
		if key == "" {
			key = "token:" + token
		}
		lu := im.late[key]
		if lu == nil {
			lu = &lateUpdates{market: market, token: token}
			im.late[key] = lu
		}
		lu.n++
		lu.max = max(lu.max, last.Sub(st.Exchange))
		im.st.OutOfOrder++
		st.Exchange = last
	}
	im.lastBook[token] = st.Exchange
	return st
}

// lateWarnings are the warnings of the late updates, by market.
func (im *importer) lateWarnings() []string {
	keys := make([]string, 0, len(im.late))
	for k := range im.late {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var w []string
	for _, k := range keys {
		lu := im.late[k]
		what := "market " + lu.market
		if lu.market == "" {
			what = "token " + lu.token
		}
		w = append(w, fmt.Sprintf("%s: %d book updates dated before the book they follow (up to %s before): applied in the order they came, at that book's time",
			what, lu.n, lu.max))
	}
	return w
}

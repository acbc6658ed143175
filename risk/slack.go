package risk

import (
	"math"

	"github.com/mmbot/mmbot/exchange"
)

// Slack records, over the checks and fits of one market's pass, how far the
// other markets' totals (Exposure.Others) could have risen with every
// check and fit still coming out as it did; a check or fit that the totals
// decided (a bound that held a size back, a refusal) pins them. A pass whose
// only changed input is the other markets' totals has the same result when
// Admits says so. Record into a Slack by setting Exposure.Slack; start from
// NewSlack.
type Slack struct {
	shares, atRisk exchange.Fixed // room, base units
	open           int
	pinShares      bool
	pinAtRisk      bool
	pinOpen        bool
}

// NewSlack returns a Slack with unlimited room.
func NewSlack() Slack {
	return Slack{shares: exchange.MaxFixed, atRisk: exchange.MaxFixed, open: math.MaxInt}
}

// Admits reports whether every check and fit recorded would come out the
// same with the other markets' totals now instead of was: the totals a
// check or fit depended on are the same, and the others rose by less than
// the room left.
func (s *Slack) Admits(was, now Totals) bool {
	if was == now {
		return true // the very decimals: the same totals (rounded the same)
	}
	ws, ns := round(was.Shares, up), round(now.Shares, up)
	wa, na := round(was.AtRisk, up), round(now.AtRisk, up)
	return admits(s.pinShares, s.shares, ws, ns) && admits(s.pinAtRisk, s.atRisk, wa, na) &&
		(now.Open == was.Open || (!s.pinOpen && (now.Open < was.Open || now.Open-was.Open <= s.open)))
}

func admits(pinned bool, room, was, now exchange.Fixed) bool {
	if now == was {
		return true
	}
	return !pinned && (now < was || now-was <= room)
}

// roomShares notes a comparison the other markets' shares did not decide,
// with r the most they could have risen by leaving it so.
func (s *Slack) roomShares(r exchange.Fixed) {
	if s == nil {
		return
	}
	if r < 0 {
		s.pinShares = true
	}
	s.shares = min(s.shares, r)
}

func (s *Slack) roomAtRisk(r exchange.Fixed) {
	if s == nil {
		return
	}
	if r < 0 {
		s.pinAtRisk = true
	}
	s.atRisk = min(s.atRisk, r)
}

func (s *Slack) roomOpen(r int) {
	if s == nil {
		return
	}
	if r < 0 {
		s.pinOpen = true
	}
	s.open = min(s.open, r)
}

// pin notes a comparison that the other markets' totals decided.
func (s *Slack) pin(shares, atRisk, open bool) {
	if s == nil {
		return
	}
	s.pinShares = s.pinShares || shares
	s.pinAtRisk = s.pinAtRisk || atRisk
	s.pinOpen = s.pinOpen || open
}

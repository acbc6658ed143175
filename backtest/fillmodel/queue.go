package fillmodel

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mmbot/mmbot/exchange"
)

// QueueFunc is the weight function of the probabilistic queue model.
type QueueFunc uint8

// Weight functions f of QueueModel.
const (
	QueuePower QueueFunc = iota // f(x) = x^N
	QueueLog                    // f(x) = log(1 + x), x in shares
)

// QueueModel splits a decrease of a price level that trades do not explain
// (cancellations) between the part of the queue ahead of our order and the
// part behind it. The front takes the fraction
//
//	f(ahead) / (f(ahead) + f(behind))
//
// of the decrease (any excess over what the back holds also goes to the
// front). This is the family of probabilistic queue-position models
// described by E. Rigtorp, "Estimating order queue position" (2013), and
// implemented as the power and logarithmic "probability queue models" of the
// hftbacktest project; see docs/backtesting.md.
//
// With Sample false the expected split is applied (deterministic). With
// Sample true the whole decrease goes to the front with probability equal
// to that fraction, else to the back, drawn from the Matcher's seeded
// source.
type QueueModel struct {
	Func   QueueFunc
	N      float64 // exponent of QueuePower; 0 means 2
	Sample bool
}

// Validate checks the parameters.
func (q QueueModel) Validate() error {
	if q.Func > QueueLog {
		return fmt.Errorf("queue model: unknown function %d", q.Func)
	}
	if q.N < 0 || math.IsNaN(q.N) || q.N > 20 {
		return fmt.Errorf("queue model: exponent %g outside [0, 20]", q.N)
	}
	return nil
}

// String describes the model for reports.
func (q QueueModel) String() string {
	s := "power n=" + fmt.Sprint(q.exponent())
	if q.Func == QueueLog {
		s = "log"
	}
	if q.Sample {
		s += ", sampled"
	}
	return s
}

func (q QueueModel) exponent() float64 {
	if q.N == 0 {
		return 2
	}
	return q.N
}

func (q QueueModel) weight(x exchange.Fixed) float64 {
	shares := x.Float()
	if q.Func == QueueLog {
		return math.Log1p(shares)
	}
	return math.Pow(shares, q.exponent())
}

// FrontShare is the fraction of an unexplained decrease attributed to the
// quantity ahead of us.
func (q QueueModel) FrontShare(ahead, behind exchange.Fixed) float64 {
	if ahead <= 0 {
		return 0
	}
	if behind <= 0 {
		return 1
	}
	fa, fb := q.weight(ahead), q.weight(behind)
	if s := fa + fb; s > 0 && !math.IsInf(s, 0) {
		return fa / s
	}
	return float64(ahead) / float64(ahead+behind)
}

// frontDecrease returns how much of a decrease d comes off the front, given
// front (ahead of us) and back (behind us).
func (q QueueModel) frontDecrease(front, back, d exchange.Fixed, r *rand.Rand) exchange.Fixed {
	if front <= 0 || d <= 0 {
		return 0
	}
	share := q.FrontShare(front, back)
	var dec exchange.Fixed
	if q.Sample {
		if r.Float64() < share {
			dec = d
		} else {
			dec = max(0, d-back)
		}
	} else {
		dec = exchange.Fixed(math.Round(share * float64(d)))
		if rest := d - dec; rest > back {
			dec += rest - back
		}
	}
	return min(dec, front)
}

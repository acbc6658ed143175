package scoreboard

import (
	"context"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
)

// BenchmarkGenerateHour is the simulated clock's speed: one hour of the
// default scenario's eight markets per iteration (the target: seconds, not
// an hour).
func BenchmarkGenerateHour(b *testing.B) {
	sc := Scenarios(DefaultOptions)[0]
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ev, err := Generate(context.Background(), sc)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(ev)), "events/op")
	}
}

// BenchmarkReplayHour is one scoreboard run: an hour of the calm scenario
// through bands under the queue model.
func BenchmarkReplayHour(b *testing.B) {
	sc := Scenarios(DefaultOptions)[:1]
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), Config{Scenarios: sc, Models: []string{"bands"},
			Modes: []fillmodel.Mode{fillmodel.ModeQueue}, Build: testBuild, Seed: 1, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(time.Hour.Seconds(), "market-s/op")
}

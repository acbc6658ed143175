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

// BenchmarkCalibrationLong is the long run of the market's calibration:
// the naive quoter on calm, jumps and informed over 10 seeds of 3 markets
// for an hour, under both fill models, reported as the mean and the ends
// of the 95% interval over the seeds of its PnL and of its 60 s mid-to-mid
// markout (cents). Run it once:
//
//	go test -run '^$' -bench CalibrationLong -benchtime 1x ./backtest/scoreboard
func BenchmarkCalibrationLong(b *testing.B) {
	sc, err := Pick(Scenarios(Options{Seed: 1, Markets: 3, Duration: time.Hour}), []string{"calm", "jumps", "informed"})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		rows, err := Run(context.Background(), Config{Scenarios: sc, Models: []string{"naive"},
			Modes: []fillmodel.Mode{fillmodel.ModeQueue, fillmodel.ModeConservative}, Build: testBuild, Seed: 1, Seeds: 10, Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range sc {
			p := tInterval(perSeed(rows, s.Name, "naive", pnl))
			m := tInterval(perSeed(rows, s.Name, "naive", func(r *Row) float64 { return 100 * r.MidMarkout60s }))
			b.ReportMetric(p.mean, s.Name+"-PnL")
			b.ReportMetric(p.lo(), s.Name+"-PnL-lo")
			b.ReportMetric(p.hi(), s.Name+"-PnL-hi")
			b.ReportMetric(m.mean, s.Name+"-mid60-¢")
			b.ReportMetric(m.lo(), s.Name+"-mid60-lo")
			b.ReportMetric(m.hi(), s.Name+"-mid60-hi")
		}
	}
}

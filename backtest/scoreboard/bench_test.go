package scoreboard

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/fillmodel"
)

// BenchmarkGenerateHour is the simulated clock's speed: the first default
// scenario (DefaultOptions: its markets over its duration) per iteration
// (the target: seconds, not the scenario's duration).
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

// BenchmarkReplayHour is one scoreboard run: the calm scenario
// (DefaultOptions) through bands under the queue model.
func BenchmarkReplayHour(b *testing.B) {
	sc := Scenarios(DefaultOptions)[:1]
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Run(context.Background(), Config{Scenarios: sc, Models: []string{"bands"},
			Modes: []fillmodel.Mode{fillmodel.ModeQueue}, Build: testBuild, Seed: 1, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(DefaultOptions.Duration.Seconds()*float64(DefaultOptions.Markets), "market-s/op")
}

var calibrationLong = flag.Bool("calibration-long", false, "BenchmarkCalibrationLong: the long run (10 seeds of an hour), not the check")

// BenchmarkCalibrationLong is the long run of the market's calibration:
// the naive quoter on calm, jumps and informed over 10 seeds of 3 markets
// for an hour, under both fill models, with a position limit of 40 shares
// a market (lim40) and with the configuration's default of 500 (lim500),
// reported as the mean and the ends of the 95% interval over the seeds of
// its PnL and of its 60 s mid-to-mid markout (cents). It takes about two
// minutes; without -calibration-long (as CI runs every benchmark once) it
// runs 2 seeds of 10 minutes, to check that it works. Run it once:
//
//	go test -run '^$' -bench CalibrationLong -benchtime 1x ./backtest/scoreboard -calibration-long
func BenchmarkCalibrationLong(b *testing.B) {
	modes := []fillmodel.Mode{fillmodel.ModeQueue, fillmodel.ModeConservative}
	seeds, d := 2, 10*time.Minute
	if *calibrationLong {
		seeds, d = 10, time.Hour
	}
	for i := 0; i < b.N; i++ {
		for _, limit := range []int64{40, 500} {
			pnls, mids := calibrate(b, naiveBuild(limit), seeds, d, modes, "calm", "jumps", "informed")
			for _, name := range []string{"calm", "jumps", "informed"} {
				p, m := pnls[name], mids[name]
				tag := fmt.Sprintf("lim%d-%s", limit, name)
				b.ReportMetric(p.mean, tag+"-PnL")
				b.ReportMetric(p.lo(), tag+"-PnL-lo")
				b.ReportMetric(p.hi(), tag+"-PnL-hi")
				b.ReportMetric(m.mean, tag+"-mid60-¢")
				b.ReportMetric(m.lo(), tag+"-mid60-lo")
				b.ReportMetric(m.hi(), tag+"-mid60-hi")
			}
		}
	}
}

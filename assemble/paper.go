package assemble

import (
	"fmt"
	"math/rand/v2"

	"github.com/mmbot/mmbot/backtest/fillmodel"
	"github.com/mmbot/mmbot/configs"
	"github.com/mmbot/mmbot/signer"
)

// paperSeed seeds the throwaway paper key. It is public on purpose: the key
// holds nothing and signs nothing that is sent.
const paperSeed = "mmbot paper trading, nothing is sent"

// PaperAccount returns the dry run's throwaway account.
func PaperAccount() (*Account, error) {
	var seed [32]byte
	copy(seed[:], paperSeed)
	r := rand.NewChaCha8(seed)
	key, err := signer.GenerateKey(r)
	if err != nil {
		return nil, fmt.Errorf("paper key: %w", err)
	}
	creds, err := signer.GenerateCredentials(r)
	if err != nil {
		return nil, fmt.Errorf("paper credentials: %w", err)
	}
	return &Account{key: key, creds: creds, sigType: signer.SigEOA}, nil
}

// PaperMatcherConfig reads the fill model of a paper session from
// [backtest]: fill_model, latency_order and latency_cancel (latency_data does
// not apply: the data arrives with its real delay).
func PaperMatcherConfig(b *configs.Backtest) (fillmodel.MatcherConfig, error) {
	mode, err := fillmodel.ParseMode(b.FillModel)
	if err != nil {
		return fillmodel.MatcherConfig{}, fmt.Errorf("backtest.fill_model: %w", err)
	}
	return fillmodel.MatcherConfig{Mode: mode, Seed: 1,
		Latency: fillmodel.Latency{Order: fillmodel.Constant(b.LatencyOrder.Std()), Cancel: fillmodel.Constant(b.LatencyCancel.Std())}}, nil
}

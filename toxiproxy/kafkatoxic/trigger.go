package kafkatoxic

import "math/rand"

// trigger decides which matching requests a fault acts on: from the after-th match on,
// at most times of them (0: every one), each with probability drawn from a generator
// seeded by seed (the run's seed, so a schedule replays the same draws in the same order).
type trigger struct {
	matched, fired int
	rng            *rand.Rand
}

func (t *trigger) fire(cfg *requestConfig) bool {
	t.matched++
	if t.matched < max(cfg.After, 1) || (cfg.Times > 0 && t.fired >= cfg.Times) {
		return false
	}
	if cfg.Probability > 0 && cfg.Probability < 1 {
		if t.rng == nil {
			t.rng = rand.New(rand.NewSource(cfg.Seed)) // #nosec G404 -- reproducible on purpose
		}
		if t.rng.Float64() >= cfg.Probability {
			return false
		}
	}
	t.fired++
	return true
}

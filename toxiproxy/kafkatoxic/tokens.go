package kafkatoxic

import (
	"math"
	"sync"

	"kafka-eos-harness/toxiproxy/kafkaproto"
)

// Toxiproxy gives each direction of a connection its own toxic chain and state, so the toxic
// that sees a response cannot tell which request it answers. A request whose answer a fault
// must change therefore travels with a token in place of its correlation id: the broker
// echoes it, and the kafka_response toxic on the way back recognises it, puts the client's id
// back and acts. Tokens are negative, which no client uses (their ids count up from 0).
type answer struct {
	correlationID int32 // the client's own
	toxic         *RequestToxic
	hit           int // index in the toxic's hits
	api           *kafkaproto.API
	version       int16
	came          chan struct{} // closed when the answer has come back
}

var tokens = struct {
	sync.Mutex
	next    int64
	pending map[int32]answer
}{pending: map[int32]answer{}}

func issueToken(a answer) int32 {
	tokens.Lock()
	defer tokens.Unlock()
	a.came = make(chan struct{})
	tokens.next++
	token := int32(math.MinInt32 + 1 + tokens.next%(1<<30))
	tokens.pending[token] = a
	return token
}

// redeemToken takes back the answer a token stands for (false: not a token of ours).
func redeemToken(token int32) (answer, bool) {
	if token >= 0 {
		return answer{}, false
	}
	tokens.Lock()
	defer tokens.Unlock()
	a, ok := tokens.pending[token]
	delete(tokens.pending, token)
	return a, ok
}

// seen tells whoever waits for the answer (cameBack) that it has come and is recorded.
func (a answer) seen() {
	close(a.came)
}

// cameBack is closed once the answer a token stands for has come back (nil: not a token of ours).
func cameBack(token int32) <-chan struct{} {
	tokens.Lock()
	defer tokens.Unlock()
	return tokens.pending[token].came
}

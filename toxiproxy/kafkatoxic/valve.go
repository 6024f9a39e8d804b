// Package kafkatoxic holds Toxiproxy toxics that act on one Kafka API's requests or responses:
// kafka_request (on the stream towards the broker) and kafka_response (back to the client).
package kafkatoxic

import (
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"

	"kafka-eos-harness/toxiproxy/kafkaproto"
)

// valve is one connection's direction as a toxic sees it: its frames, and what it does with
// them. TCP keeps bytes in order, so a held or dropped frame holds or drops everything after it
// on that connection too; other connections are not touched.
type valve struct {
	frames    kafkaproto.Splitter
	out       []*stream.StreamChunk // decided, not yet written
	held      []*stream.StreamChunk // waiting for holdUntil
	holding   bool
	holdUntil time.Time
	onRelease func(clientClosed bool) // told when a hold ends
	// A tagged request whose answer the toxics want to see: once the sender has closed its side,
	// the connection is kept open for the answer (closed when it came) until answerBy.
	awaiting  <-chan struct{}
	answerBy  time.Time
	dropping  bool // everything from here on is swallowed
	closing   bool // close once out is written
	closed    bool
	inputDone bool // the sender closed its side
}

// decider looks at a frame's first piece and may change it or the valve's mode.
type decider func(v *valve, piece []byte)

func (v *valve) hold(d time.Duration, onRelease func(clientClosed bool)) {
	v.holding, v.holdUntil, v.onRelease = true, time.Now().Add(d), onRelease
}

// route places one piece according to the mode the valve is in.
func (v *valve) route(piece []byte, at time.Time) {
	if len(piece) == 0 {
		return
	}
	c := &stream.StreamChunk{Data: piece, Timestamp: at}
	switch {
	case v.dropping, v.closing:
	case v.holding:
		v.held = append(v.held, c)
	default:
		v.out = append(v.out, c)
	}
}

func (v *valve) release() {
	v.out = append(v.out, v.held...)
	v.held, v.holding = nil, false
	if v.onRelease != nil {
		v.onRelease(v.inputDone)
		v.onRelease = nil
	}
}

// flush writes what is decided; false if interrupted first (the rest stays for the next run).
func (v *valve) flush(stub *toxics.ToxicStub) bool {
	for len(v.out) > 0 {
		select {
		case stub.Output <- v.out[0]:
			v.out = v.out[1:]
		case <-stub.Interrupt:
			return false
		}
	}
	return true
}

// pipe is the loop both toxics run on a connection: chunks in, split into frames, each frame's
// start shown to decide (unless the stream is already held, dropped or closing), pieces
// routed by the mode, held ones released on time. Every wait can be interrupted; the state
// lives in the valve, so the next run goes on where this one stopped.
func pipe(stub *toxics.ToxicStub, v *valve, decide decider) {
	for {
		if v.closed {
			drain(stub)
			return
		}
		if !v.flush(stub) {
			return
		}
		if v.closing || (v.inputDone && !v.holding && !v.awaitingAnswer()) {
			stub.Close()
			v.closed = true
			continue
		}
		if !v.wait(stub, decide) {
			return
		}
	}
}

func (v *valve) awaitingAnswer() bool {
	if v.awaiting == nil {
		return false
	}
	select {
	case <-v.awaiting:
		v.awaiting = nil
		return false
	default:
		return time.Now().Before(v.answerBy)
	}
}

// wait takes the next event: an interrupt (false), a hold falling due, the answer awaited (or
// the time for it running out), or a chunk.
func (v *valve) wait(stub *toxics.ToxicStub, decide decider) bool {
	var due <-chan time.Time
	if v.holding || v.inputDone {
		until := v.holdUntil
		if !v.holding {
			until = v.answerBy
		}
		timer := time.NewTimer(time.Until(until))
		defer timer.Stop()
		due = timer.C
	}
	input := stub.Input
	if v.inputDone {
		input = nil // closed: it would answer nil at once, for ever
	}
	select {
	case <-stub.Interrupt:
		return false
	case <-due:
		if v.holding {
			v.release()
		}
	case <-v.awaiting:
	case c := <-input:
		if c == nil {
			v.inputDone = true
			return true
		}
		v.frames.Feed(c.Data, func(piece []byte, start bool) {
			if start && !v.dropping && !v.holding && !v.closing {
				decide(v, piece)
			}
			v.route(piece, c.Timestamp)
		})
	}
	return true
}

// drain reads a closed connection's input to its end, so the toxics before this one never
// block on it.
func drain(stub *toxics.ToxicStub) {
	for c := range stub.Input {
		_ = c
	}
}

// cleanup runs when the toxic is removed: whatever it still holds goes on at once, in order
// (a late copy delivered early rather than lost), unless the stream was being dropped, which
// leaves the connection unusable: then it is closed.
func cleanup(stub *toxics.ToxicStub, v *valve) {
	if v.closed {
		return
	}
	if v.dropping {
		stub.Close()
		v.closed = true
		return
	}
	v.release()
	if pending := v.frames.Pending(); len(pending) > 0 {
		v.out = append(v.out, &stream.StreamChunk{Data: pending, Timestamp: time.Now()})
	}
	for _, c := range v.out {
		if err := stub.WriteOutput(c, 5*time.Second); err != nil {
			break
		}
	}
	v.out = nil
}

package kafkatoxic

import (
	"encoding/binary"
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"

	"kafka-eos-harness/toxiproxy/kafkaproto"
)

// ResponseToxic sits on the stream back to the client, beside a kafka_request toxic whose
// action needs the answer: all but drop. It acts only on answers to the requests that toxic
// tagged (tokens.go) and passes everything else through; it has no attributes.
type ResponseToxic struct{}

func (t *ResponseToxic) NewState() interface{} {
	return &valve{}
}

func (t *ResponseToxic) Pipe(stub *toxics.ToxicStub) {
	pipe(stub, stub.State.(*valve), actOnAnswer)
}

func (t *ResponseToxic) Cleanup(stub *toxics.ToxicStub) {
	cleanup(stub, stub.State.(*valve))
}

// actOnAnswer acts on a tagged response as its request's fault says: it closes the connection in
// its place (cut_after: the broker has carried the request out, the client never learns it), or
// gives it its client's correlation id back and holds it (delay_response), replaces its error code
// (error) or lets it go (hold: the answer to the late copy, recorded).
func actOnAnswer(v *valve, piece []byte) {
	if len(piece) < kafkaproto.ResponseCorrelationAt+4 {
		return
	}
	a, ok := redeemToken(kafkaproto.Correlation(piece, kafkaproto.ResponseCorrelationAt))
	if !ok {
		return
	}
	kafkaproto.SetCorrelation(piece, kafkaproto.ResponseCorrelationAt, a.correlationID)
	var brokerCode *int16
	at, nested := kafkaproto.ResponseErrorAt(a.api, a.version, piece)
	if at >= 0 {
		code := int16(binary.BigEndian.Uint16(piece[at : at+2]))
		brokerCode = &code
	}
	a.toxic.responded(a.hit, brokerCode)
	defer a.seen()
	cfg := a.toxic.config()
	switch cfg.Action {
	case CutAfter:
		v.dropping, v.closing = true, true
		a.toxic.closed(a.hit)
	case DelayResponse:
		a.toxic.holding()
		v.hold(time.Duration(cfg.DurationMs)*time.Millisecond, func(clientClosed bool) {
			a.toxic.delivered(a.hit, clientClosed)
		})
	case Error:
		if at >= 0 && !nested {
			kafkaproto.SetErrorCode(piece, at, cfg.ErrorCode)
		}
	}
}

func init() {
	toxics.Register("kafka_response", new(ResponseToxic))
}

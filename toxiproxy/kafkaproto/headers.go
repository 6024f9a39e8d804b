package kafkaproto

import (
	"encoding/binary"
)

// A frame on the wire is a 4-byte big-endian size and that many bytes. Offsets below count
// from the start of the frame, size included.
const (
	SizeBytes = 4
	// A request's correlation id follows its API key and version; a response's comes first.
	RequestCorrelationAt  = SizeBytes + 4
	ResponseCorrelationAt = SizeBytes
	// Frames larger than this are taken for a stream read out of step (the brokers' own
	// socket.request.max.bytes default is 100 MiB).
	MaxFrame = 1 << 30
)

// FrameSize is the length of the frame starting at head[0] (size prefix included), or -1 when
// the size is not plausible.
func FrameSize(head []byte) int {
	size := int32(binary.BigEndian.Uint32(head[:SizeBytes]))
	if size < 4 || size > MaxFrame {
		return -1
	}
	return SizeBytes + int(size)
}

// RequestHeader is what every request starts with (header versions 1 and 2).
type RequestHeader struct {
	API           *API // nil: a key the table does not know
	Key           int16
	Version       int16
	CorrelationID int32
	ClientID      string
	BodyAt        int // where the body starts in the frame
}

// ParseRequestHeader reads the header of the request frame frame (size prefix included;
// the frame may be cut short after its head).
func ParseRequestHeader(frame []byte) (RequestHeader, error) {
	r := reader{b: frame, off: SizeBytes}
	key, err := r.int16()
	if err != nil {
		return RequestHeader{}, err
	}
	version, err := r.int16()
	if err != nil {
		return RequestHeader{}, err
	}
	correlation, err := r.int32()
	if err != nil {
		return RequestHeader{}, err
	}
	h := RequestHeader{API: ByKey(key), Key: key, Version: version, CorrelationID: correlation}
	// The client id is a classic (non-compact) nullable string in every header version.
	clientID, _, err := r.string()
	if err != nil {
		return h, err
	}
	h.ClientID = clientID
	if h.API != nil && h.API.Flexible(version) {
		if err := r.skipTaggedFields(); err != nil {
			return h, err
		}
	}
	h.BodyAt = r.off
	return h, nil
}

// Plausible says whether a parsed header looks like a real request: a stream picked up in the
// middle of a frame (a toxic added to an open connection) is read as noise otherwise.
func (h RequestHeader) Plausible() bool {
	return h.API != nil && h.Version >= 0 && h.Version <= 30 && h.CorrelationID >= 0
}

// RequestFields reads the leading fields the table lists for this API and version (into an
// array's first element where the table goes on after it); those the frame's head does not
// reach are left out.
func RequestFields(h RequestHeader, frame []byte) map[string]any {
	fields := map[string]any{}
	if h.API == nil {
		return fields
	}
	r := reader{b: frame, off: h.BodyAt, compact: h.API.Flexible(h.Version)}
	for _, f := range h.API.Request {
		if !f.Versions.Has(h.Version) {
			continue
		}
		v, err := r.field(f.Type)
		if err != nil {
			break
		}
		if f.Type == "array" {
			if v.(int64) < 1 {
				break // the fields that follow are its first element's
			}
			continue
		}
		if v != nil {
			fields[f.Name] = v
		}
	}
	return fields
}

// ResponseErrorAt is where the error code of a response to (api, version) sits in its frame,
// or -1 if it has none the table can reach (or the head is too short to tell). The code is
// the response's top-level one, or, where the table walks into arrays (Produce,
// TxnOffsetCommit), the first partition's; nested says which.
func ResponseErrorAt(api *API, version int16, frame []byte) (at int, nested bool) {
	if api == nil {
		return -1, false
	}
	// A flexible version's body is compact; its header has tagged fields, but ApiVersions'.
	r := reader{b: frame, off: ResponseCorrelationAt + 4, compact: api.Flexible(version)}
	if r.compact && !api.ResponseHeaderV0 {
		if err := r.skipTaggedFields(); err != nil {
			return -1, false
		}
	}
	for _, f := range api.Response {
		if !f.Versions.Has(version) {
			continue
		}
		if f.Name == "error_code" {
			if r.off+2 > len(frame) {
				return -1, false
			}
			return r.off, nested
		}
		v, err := r.field(f.Type)
		if err != nil {
			return -1, false
		}
		if f.Type == "array" {
			if v.(int64) < 1 {
				return -1, false
			}
			nested = true
		}
	}
	return -1, false
}

// HasTopLevelError says whether some version of the API's response carries an error code
// outside any array: what an error fault can replace.
func (a *API) HasTopLevelError() bool {
	for _, f := range a.Response {
		if f.Name == "error_code" {
			return true
		}
		if f.Type == "array" {
			return false
		}
	}
	return false
}

// Correlation reads the int32 at at (a request's or a response's correlation id).
func Correlation(frame []byte, at int) int32 {
	return int32(binary.BigEndian.Uint32(frame[at : at+4]))
}

// SetCorrelation writes id over the correlation id at at.
func SetCorrelation(frame []byte, at int, id int32) {
	binary.BigEndian.PutUint32(frame[at:at+4], uint32(id))
}

// SetErrorCode writes code at at (from ResponseErrorAt).
func SetErrorCode(frame []byte, at int, code int16) {
	binary.BigEndian.PutUint16(frame[at:at+2], uint16(code))
}

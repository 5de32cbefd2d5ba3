package ingestly

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/jobpoll/poll/internal/httpapi"
)

// Document reads a submitted document: GET /documents/{documentId}. The
// path follows the docs' "get the document" page and the naming of
// /runs/{runId}; the docs do not print it. Its Status (such as failed,
// cancelled or held) tells what happened when a run never appears.
func (c *Client) Document(ctx context.Context, documentID string) (*Document, error) {
	if err := requireID("Document", "document id", documentID); err != nil {
		return nil, err
	}
	var doc Document
	req := &httpapi.Request{Method: http.MethodGet, Path: []string{"documents", documentID}}
	if err := c.api.Do(ctx, req, &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// DocumentRuns lists a document's runs, newest first:
// GET /documents/{documentId}/runs. The path follows the docs' "list the
// runs of a document" page; the docs print neither it nor the answer's
// shape, so both a bare JSON array and the {count, pages, data} envelope of
// Ingestly's other lists are read. When the list is paged, this is its first
// page, which holds the newest runs.
func (c *Client) DocumentRuns(ctx context.Context, documentID string) ([]Run, error) {
	if err := requireID("DocumentRuns", "document id", documentID); err != nil {
		return nil, err
	}
	var raw json.RawMessage
	req := &httpapi.Request{Method: http.MethodGet, Path: []string{"documents", documentID, "runs"}}
	if err := c.api.Do(ctx, req, &raw); err != nil {
		return nil, err
	}
	return decodeRunList(raw)
}

// decodeRunList reads a bare array of runs or a {"data": [...]} envelope.
func decodeRunList(raw json.RawMessage) ([]Run, error) {
	var runs []Run
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &runs); err != nil {
			return nil, fmt.Errorf("ingestly: DocumentRuns: decoding the list of runs: %w", err)
		}
		return runs, nil
	}
	var page struct {
		Data []Run `json:"data"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, fmt.Errorf("ingestly: DocumentRuns: decoding the list of runs: %w", err)
	}
	return page.Data, nil
}

// OriginalFile returns a link to the file that was submitted:
// GET /documents/{documentId}/original. The path follows the docs'
// "download the document's original file" page; the docs do not print it.
// The link is valid for 5 minutes (until ExpiresOn): ask again after that.
func (c *Client) OriginalFile(ctx context.Context, documentID string) (*OriginalFile, error) {
	if err := requireID("OriginalFile", "document id", documentID); err != nil {
		return nil, err
	}
	var f OriginalFile
	req := &httpapi.Request{Method: http.MethodGet, Path: []string{"documents", documentID, "original"}}
	if err := c.api.Do(ctx, req, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

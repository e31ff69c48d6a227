package summarize

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// AnthropicAPI summarizes through the Anthropic Messages API with the
// official SDK. The SDK retries 429 and 5xx answers itself (MaxRetries);
// what still fails is retried later by the queue.
type AnthropicAPI struct {
	APIKey  string
	Model   string
	BaseURL string // empty: the SDK's default (or ANTHROPIC_BASE_URL)
	// MaxRetries is the SDK's own retry count (default 2).
	MaxRetries int
	// HTTPClient overrides the HTTP client (nil: the SDK's default).
	HTTPClient *http.Client
}

// DefaultModel is used when the settings name none.
const DefaultModel = "claude-haiku-4-5"

// Name is "anthropic-api".
func (a *AnthropicAPI) Name() string { return GenAPI }

// Summarize sends the digest of in as one message and parses the answer.
func (a *AnthropicAPI) Summarize(ctx context.Context, in *Input) (Result, error) {
	if strings.TrimSpace(a.APIKey) == "" {
		return Result{}, hookwire.Permanent(errors.New("no Anthropic API key in settings (summarizer.apiKey)"))
	}
	model := a.Model
	if model == "" {
		model = DefaultModel
	}
	retries := a.MaxRetries
	if retries == 0 {
		retries = 2
	}
	opts := []option.RequestOption{option.WithAPIKey(a.APIKey), option.WithMaxRetries(retries)}
	if a.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(a.BaseURL))
	}
	if a.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(a.HTTPClient))
	}
	client := anthropic.NewClient(opts...)
	msg, err := client.Messages.New(ctx, anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: 1024,
		System:    []anthropic.TextBlockParam{{Text: SystemPrompt}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(Prompt(in)))},
	}, option.WithRequestTimeout(90*time.Second))
	res := Result{Generator: GenAPI, Model: model}
	if err != nil {
		var apiErr *anthropic.Error
		if errors.As(err, &apiErr) {
			switch apiErr.StatusCode {
			case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
				return res, hookwire.Permanent(fmt.Errorf("the Messages API refused the request: %d", apiErr.StatusCode))
			}
			return res, fmt.Errorf("the Messages API answered %d", apiErr.StatusCode)
		}
		return res, fmt.Errorf("the Messages API: %w", err)
	}
	if msg.Model != "" {
		res.Model = string(msg.Model)
	}
	res.InputTokens = msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens
	res.OutputTokens = msg.Usage.OutputTokens
	res.CostUSD = EstimateCost(res.Model, res.InputTokens, res.OutputTokens)
	var text strings.Builder
	for _, block := range msg.Content {
		if block.Type == "text" {
			text.WriteString(block.Text)
		}
	}
	parsed, err := ParseStrict(text.String())
	if err != nil {
		return res, err
	}
	parsed.Generator, parsed.Model = res.Generator, res.Model
	parsed.InputTokens, parsed.OutputTokens, parsed.CostUSD = res.InputTokens, res.OutputTokens, res.CostUSD
	return parsed, nil
}

// price is dollars per million input and output tokens.
type price struct{ in, out float64 }

// prices are list prices by model family, used for the cost estimate.
var prices = []struct {
	prefix string
	p      price
}{
	{"claude-haiku-4", price{1, 5}},
	{"claude-3-5-haiku", price{0.8, 4}},
	{"claude-3-haiku", price{0.25, 1.25}},
	{"claude-sonnet", price{3, 15}},
	{"claude-3-5-sonnet", price{3, 15}},
	{"claude-3-7-sonnet", price{3, 15}},
	{"claude-opus-4-5", price{5, 25}},
	{"claude-opus", price{15, 75}},
	{"haiku", price{1, 5}},
	{"sonnet", price{3, 15}},
	{"opus", price{15, 75}},
}

// EstimateCost estimates the dollar cost of a call from list prices; an
// unknown model is priced like Sonnet.
func EstimateCost(model string, in, out int64) float64 {
	p := price{3, 15}
	m := strings.ToLower(model)
	for _, e := range prices {
		if strings.HasPrefix(m, e.prefix) {
			p = e.p
			break
		}
	}
	return (float64(in)*p.in + float64(out)*p.out) / 1e6
}

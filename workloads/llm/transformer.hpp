// A decoder-only transformer as a parallel layout sees it: the figures that set every
// operation's FLOPs and bytes and every collective's size. Descriptions are JSON files
// (models/*.json), each figure with its source, read by read_transformer.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace ddl::llm {

struct Transformer {
  std::string name;
  int layers = 0;
  int hidden = 0;          // h, the model width
  int heads = 0;           // a, attention heads
  int kv_heads = 0;        // key/value heads (grouped-query attention: fewer than heads)
  int ffn = 0;             // the MLP's inner width
  bool gated_mlp = false;  // SwiGLU (Llama, Mixtral): three matrices; else two (GPT)
  int vocab = 0;
  int sequence = 0;                // s, the training sequence length
  int experts = 1;                 // MoE: experts per MLP layer (1: dense)
  int top_k = 1;                   // experts each token is routed to
  bool tied_embeddings = false;    // the output layer reuses the input embedding (GPT)
  bool learned_positions = false;  // a position embedding table of sequence x hidden (GPT)
  std::size_t dtype_bytes = 2;     // weights, activations and gradients (bf16)
  std::map<std::string, std::string> sources;  // figure -> where it comes from

  int head_dim() const { return hidden / heads; }
  bool moe() const { return experts > 1; }
};

// Reads a description; InvalidArgument naming the file and the field for a missing field, a
// figure out of range (non-positive, heads not dividing hidden, kv_heads not dividing heads,
// top_k above experts), or a figure without a source.
Transformer read_transformer(const std::string& path);

// Parameters of one layer (attention, MLP with every expert, router, norms) and of the whole
// model (embeddings, positions, output layer unless tied, final norm). Biases are left out:
// Llama and Mixtral have none, and GPT-3's are under 0.01 % of it.
std::size_t layer_parameters(const Transformer& t);
std::size_t embedding_parameters(const Transformer& t);  // input table (+ positions)
std::size_t output_parameters(const Transformer& t);     // 0 when tied
std::size_t parameter_count(const Transformer& t);

}  // namespace ddl::llm

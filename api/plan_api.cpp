// Plans: the case lists of plan/run_plan.hpp, the same code `mlacheck run` lists its cases with.
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"
#include "plan/case_settle.hpp"
#include "plan/data_files.hpp"
#include "plan/plan_file.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

namespace {

constexpr int kDefaultPropertyCases = 64;  // `mlacheck run --property-cases` default

// The scenario table a plan with scenarios reads: the caller's file, else the one shipped with this
// library (plan/data_files.hpp). Never "": a plan that would lose its scenarios is refused.
std::string table_path(const char* scenarios_file) {
  try {
    return mlacheck::scenario_table_path(scenarios_file == nullptr ? "" : scenarios_file);
  } catch (const std::invalid_argument& e) {
    throw ApiError(MLACHECK_ERROR_IO, e.what());
  }
}

// The shipped known-bug table, or the caller's; a table that does not load is an input error.
KnownBugTable known_bug_table(const std::optional<std::string>& option) {
  try {
    return std::make_shared<const std::vector<mlacheck::scenarios::KnownBug>>(mlacheck::load_known_bug_table(option));
  } catch (const std::exception& e) {
    throw ApiError(MLACHECK_ERROR_IO, e.what());
  }
}

}  // namespace

namespace mlacheck::api {

std::optional<SupportSpace> parse_space_argument(const char* space) {
  if (space == nullptr || *space == '\0') return std::nullopt;
  try {
    return parse_space(space);
  } catch (const std::invalid_argument& e) {
    throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, e.what());
  }
}

}  // namespace mlacheck::api

using mlacheck::api::parse_space_argument;

namespace {

// The plan `options` list, settled with the shipped known-bug table, carrying its space.
std::unique_ptr<mlacheck_plan> built_plan(const mlacheck::RunPlanOptions& options) {
  auto plan = std::make_unique<mlacheck_plan>();
  plan->cases = mlacheck::build_run_plan(options);
  plan->known_bugs = known_bug_table(std::nullopt);
  if (options.space) {
    plan->space = mlacheck::to_text(*options.space);
    plan->space_excludes = mlacheck::space_excludes_text(*options.space);
  }
  return plan;
}

// mlacheck_plan_open and _open_space: the plan of `kind`, its property sweep within `space`.
mlacheck_status open_plan(const char* function, int32_t kind, uint64_t seed, int32_t size,
                          const char* scenarios_file, const char* space, mlacheck_plan** out) {
  return api_call(function, [&] {
    require(out, "out");
    *out = nullptr;
    mlacheck::RunPlanOptions options;
    options.space = parse_space_argument(space);
    options.seed = seed;
    options.property_cases = size < 0 ? kDefaultPropertyCases : size;
    switch (kind) {
      case MLACHECK_PLAN_DEFAULT: {
        options.scenarios_file = table_path(scenarios_file);
        // The covering array of the production factors (plan/coverage_cases.hpp), as `mlacheck run`.
        const mlacheck::FactorTableFiles factors = mlacheck::production_factor_tables("");
        options.factors_file = factors.factors;
        options.impossible_file = factors.impossible;
        break;
      }
      case MLACHECK_PLAN_SCENARIOS:
        options.scenarios_file = table_path(scenarios_file);
        options.oracle_self_checks = false;
        options.default_sweeps = false;
        options.property_cases = 0;
        break;
      case MLACHECK_PLAN_PROPERTIES:
        options.oracle_self_checks = false;
        options.default_sweeps = false;
        break;
      default:
        throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT,
                       "plan kind " + std::to_string(kind) + " is not one of 0 (default), 1 (scenarios), 2 (properties)");
    }
    *out = built_plan(options).release();
  });
}

// mlacheck_plan_open_tier and _open_file: the plan of a plan file, its property sweep within `space`.
// A plan file that cannot be read or has a malformed line is MLACHECK_ERROR_IO naming file:line.
mlacheck_status open_plan_file(const char* function, const std::function<std::string()>& plan_path,
                               const char* space, mlacheck_plan** out) {
  return api_call(function, [&] {
    require(out, "out");
    *out = nullptr;
    const std::optional<mlacheck::SupportSpace> parsed_space = parse_space_argument(space);
    mlacheck::RunPlanOptions options;
    try {
      options = mlacheck::read_plan_file(plan_path());
      mlacheck::resolve_plan_tables(options);
    } catch (const ApiError&) {
      throw;
    } catch (const std::invalid_argument& e) {
      throw ApiError(MLACHECK_ERROR_IO, e.what());
    }
    options.space = parsed_space;
    *out = built_plan(options).release();
  });
}

}  // namespace

extern "C" {

uint32_t mlacheck_harness_api_version(void) { return MLACHECK_HARNESS_API_VERSION; }

mlacheck_status mlacheck_plan_open(int32_t kind, uint64_t seed, int32_t size, const char* scenarios_file,
                                   mlacheck_plan** out) {
  return open_plan("mlacheck_plan_open", kind, seed, size, scenarios_file, nullptr, out);
}

mlacheck_status mlacheck_plan_open_space(int32_t kind, uint64_t seed, int32_t size, const char* scenarios_file,
                                         const char* space, mlacheck_plan** out) {
  return open_plan("mlacheck_plan_open_space", kind, seed, size, scenarios_file, space, out);
}

mlacheck_status mlacheck_plan_open_tier(const char* tier, const char* space, mlacheck_plan** out) {
  return open_plan_file("mlacheck_plan_open_tier", [&] {
    const std::string name = require(tier, "tier");
    std::string names;
    for (const char* tier_name : mlacheck::kTierNames) {
      if (name == tier_name) return mlacheck::tier_plan_path(name);  // missing file: a damaged install
      names += (names.empty() ? "" : ", ") + std::string(tier_name);
    }
    throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "tier '" + name + "' is not one of " + names);
  }, space, out);
}

mlacheck_status mlacheck_plan_open_file(const char* path, const char* space, mlacheck_plan** out) {
  return open_plan_file("mlacheck_plan_open_file", [&] {
    const std::string file = require(path, "path");
    if (file.empty()) throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "path is empty");
    return file;
  }, space, out);
}

mlacheck_status mlacheck_plan_space(const mlacheck_plan* plan, const char** space, const char** excludes) {
  return api_call("mlacheck_plan_space", [&] {
    require(plan, "plan");
    *require(space, "space") = plan->space.c_str();
    *require(excludes, "excludes") = plan->space_excludes.c_str();
  });
}

mlacheck_status mlacheck_space_describe(const char* space, const char** canonical, const char** excludes) {
  return api_call("mlacheck_space_describe", [&] {
    thread_local std::string canonical_text;
    thread_local std::string excludes_text;
    require(canonical, "canonical");
    require(excludes, "excludes");
    const mlacheck::SupportSpace parsed = mlacheck::api::parse_space_argument(require(space, "space")).value_or(
        mlacheck::SupportSpace{});
    canonical_text = mlacheck::to_text(parsed);
    excludes_text = mlacheck::space_excludes_text(parsed);
    *canonical = canonical_text.c_str();
    *excludes = excludes_text.c_str();
  });
}

mlacheck_status mlacheck_plan_open_repro(const char* repro, mlacheck_plan** out) {
  return api_call("mlacheck_plan_open_repro", [&] {
    require(out, "out");
    *out = nullptr;
    mlacheck::RunPlanOptions options;
    options.case_repro = require(repro, "repro");
    if (options.case_repro.empty()) throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "repro is empty");
    auto plan = std::make_unique<mlacheck_plan>();
    plan->cases = mlacheck::build_run_plan(options);
    plan->known_bugs = known_bug_table(std::nullopt);
    *out = plan.release();
  });
}

mlacheck_status mlacheck_plan_set_known_bugs(mlacheck_plan* plan, const char* path) {
  return api_call("mlacheck_plan_set_known_bugs", [&] {
    require(plan, "plan")->known_bugs = known_bug_table(std::string(path == nullptr ? "" : path));
  });
}

void mlacheck_plan_free(mlacheck_plan* plan) { delete plan; }

mlacheck_status mlacheck_plan_size(const mlacheck_plan* plan, int64_t* count) {
  return api_call("mlacheck_plan_size", [&] {
    *require(count, "count") = static_cast<int64_t>(require(plan, "plan")->cases.size());
  });
}

}  // extern "C"

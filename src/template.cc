/*
 * The ctemplate bridge: the only C++ in strata. Every entry point catches
 * everything (no exception crosses into C) and keeps ctemplate's own
 * std::cerr logging off the terminal, turning it into the last error.
 */
#include "strata/template.h"

#include <ctemplate/template.h>
#include <ctemplate/template_cache.h>
#include <ctemplate/template_dictionary.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <sstream>
#include <string>

extern "C" {
#include "strata/error.h"
}

using ctemplate::TemplateCache;
using ctemplate::TemplateDictionary;

struct template_set {
	TemplateCache cache;
	std::string dir;
};

namespace {

/*
 * While one lives, what ctemplate writes to std::cerr is kept here. Its
 * messages look like "WARNING: Unable to locate file x.tpl" or "ERROR:
 * Template /t/x.tpl: ERROR: File ended before all sections were closed";
 * text() gives them as our messages read ("file ended before all sections
 * were closed"): without level tags and the template's name, which the
 * caller gives, lowercase, lines joined by "; ".
 */
class captured_log {
public:
	captured_log() : old_(std::cerr.rdbuf(buf_.rdbuf())) {}
	~captured_log() { std::cerr.rdbuf(old_); }
	captured_log(const captured_log &) = delete;
	captured_log &operator=(const captured_log &) = delete;

	std::string text() const
	{
		std::string s = buf_.str(), out;
		static const char *const tags[] = {"ERROR: ", "WARNING: ",
						   "DFATAL: "};
		for (const char *tag : tags) {
			size_t at;
			while ((at = s.find(tag)) != std::string::npos)
				s.erase(at, strlen(tag));
		}
		std::istringstream lines(s);
		std::string line;
		while (std::getline(lines, line)) {
			while (!line.empty() &&
			       (line.back() == ' ' || line.back() == '\r'))
				line.pop_back();
			if (line.compare(0, 9, "Template ") == 0 &&
			    line.find(": ") != std::string::npos)
				line.erase(0, line.find(": ") + 2);
			if (line.empty())
				continue;
			if (line[0] >= 'A' && line[0] <= 'Z' &&
			    !(line.size() > 1 && line[1] >= 'A' && line[1] <= 'Z'))
				line[0] = (char)(line[0] - 'A' + 'a');
			if (!out.empty())
				out += "; ";
			out += line;
		}
		return out;
	}

private:
	std::ostringstream buf_;
	std::streambuf *old_;
};

TemplateDictionary *dict_of(struct template_dict *d)
{
	return reinterpret_cast<TemplateDictionary *>(d);
}

const TemplateDictionary *dict_of(const struct template_dict *d)
{
	return reinterpret_cast<const TemplateDictionary *>(d);
}

struct template_dict *handle_of(TemplateDictionary *d)
{
	return reinterpret_cast<struct template_dict *>(d);
}

int fail_unknown(const char *what)
{
	return error_set("%s: unexpected error in ctemplate", what);
}

} /* namespace */

extern "C" int template_set_new(struct template_set **out, const char *dir)
{
	*out = nullptr;
	try {
		captured_log log;
		template_set *set = new template_set;

		set->dir = dir;
		if (!set->cache.SetTemplateRootDirectory(set->dir)) {
			std::string why = log.text();
			delete set;
			return error_set("unable to use templates in '%s'%s%s",
					 dir, why.empty() ? "" : ": ",
					 why.c_str());
		}
		*out = set;
		return 0;
	} catch (const std::bad_alloc &) {
		return error_oom();
	} catch (const std::exception &e) {
		return error_set("unable to use templates in '%s': %s", dir,
				 e.what());
	} catch (...) {
		return fail_unknown("template_set_new");
	}
}

extern "C" void template_set_free(struct template_set *set)
{
	try {
		captured_log log;
		delete set;
	} catch (...) {
		/* nothing to report to: the set is gone either way */
	}
}

extern "C" int template_set_load(struct template_set *set, const char *name)
{
	try {
		captured_log log;

		if (set->cache.FindTemplateFilename(name).empty())
			return error_set("template '%s' not found in '%s'",
					 name, set->dir.c_str());
		if (!set->cache.LoadTemplate(name, ctemplate::STRIP_BLANK_LINES)) {
			std::string why = log.text();
			return error_set("unable to parse template '%s/%s'%s%s",
					 set->dir.c_str(), name,
					 why.empty() ? "" : ": ", why.c_str());
		}
		return 0;
	} catch (const std::bad_alloc &) {
		return error_oom();
	} catch (const std::exception &e) {
		return error_set("unable to parse template '%s': %s", name,
				 e.what());
	} catch (...) {
		return fail_unknown("template_set_load");
	}
}

extern "C" int template_expand(char **out, size_t *len,
			       struct template_set *set, const char *name,
			       const struct template_dict *dict)
{
	*out = nullptr;
	if (len)
		*len = 0;
	try {
		captured_log log;
		std::string text;

		if (set->cache.FindTemplateFilename(name).empty())
			return error_set("template '%s' not found in '%s'",
					 name, set->dir.c_str());
		if (!set->cache.ExpandWithData(name, ctemplate::STRIP_BLANK_LINES,
					       dict_of(dict), nullptr, &text)) {
			std::string why = log.text();
			return error_set("unable to expand template '%s/%s'%s%s",
					 set->dir.c_str(), name,
					 why.empty() ? "" : ": ", why.c_str());
		}
		char *s = static_cast<char *>(malloc(text.size() + 1));
		if (!s)
			return error_oom();
		memcpy(s, text.data(), text.size());
		s[text.size()] = '\0';
		*out = s;
		if (len)
			*len = text.size();
		return 0;
	} catch (const std::bad_alloc &) {
		return error_oom();
	} catch (const std::exception &e) {
		return error_set("unable to expand template '%s': %s", name,
				 e.what());
	} catch (...) {
		return fail_unknown("template_expand");
	}
}

extern "C" int template_dict_new(struct template_dict **out)
{
	*out = nullptr;
	try {
		captured_log log;
		*out = handle_of(new TemplateDictionary("strata"));
		return 0;
	} catch (const std::bad_alloc &) {
		return error_oom();
	} catch (...) {
		return fail_unknown("template_dict_new");
	}
}

extern "C" void template_dict_free(struct template_dict *dict)
{
	try {
		captured_log log;
		delete dict_of(dict);
	} catch (...) {
	}
}

extern "C" int template_dict_set(struct template_dict *dict, const char *key,
				 const char *value)
{
	try {
		captured_log log;
		dict_of(dict)->SetValue(key, value);
		return 0;
	} catch (const std::bad_alloc &) {
		return error_oom();
	} catch (...) {
		return fail_unknown("template_dict_set");
	}
}

extern "C" int template_dict_setf(struct template_dict *dict, const char *key,
				  const char *fmt, ...)
{
	char small[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return error_set("unable to format '%s'", key);
	if ((size_t)n < sizeof(small))
		return template_dict_set(dict, key, small);

	char *big = static_cast<char *>(malloc((size_t)n + 1));
	if (!big)
		return error_oom();
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	int rc = template_dict_set(dict, key, big);
	free(big);
	return rc;
}

extern "C" int template_dict_set_shared(struct template_dict *dict,
					const char *key, const char *value)
{
	try {
		captured_log log;
		dict_of(dict)->SetTemplateGlobalValue(key, value);
		return 0;
	} catch (const std::bad_alloc &) {
		return error_oom();
	} catch (...) {
		return fail_unknown("template_dict_set_shared");
	}
}

extern "C" int template_dict_show(struct template_dict *dict,
				  const char *section)
{
	try {
		captured_log log;
		dict_of(dict)->ShowSection(section);
		return 0;
	} catch (const std::bad_alloc &) {
		return error_oom();
	} catch (...) {
		return fail_unknown("template_dict_show");
	}
}

extern "C" int template_dict_add(struct template_dict **out,
				 struct template_dict *dict,
				 const char *section)
{
	*out = nullptr;
	try {
		captured_log log;
		*out = handle_of(dict_of(dict)->AddSectionDictionary(section));
		return 0;
	} catch (const std::bad_alloc &) {
		return error_oom();
	} catch (...) {
		return fail_unknown("template_dict_add");
	}
}

extern "C" int template_dict_include(struct template_dict **out,
				     struct template_dict *dict,
				     const char *key, const char *name)
{
	*out = nullptr;
	try {
		captured_log log;
		TemplateDictionary *sub = dict_of(dict)->AddIncludeDictionary(key);
		sub->SetFilename(name);
		*out = handle_of(sub);
		return 0;
	} catch (const std::bad_alloc &) {
		return error_oom();
	} catch (...) {
		return fail_unknown("template_dict_include");
	}
}

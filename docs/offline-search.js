// The site's search, written over the search plugin's main.js by docs/hooks.py: it works
// opened from disk (file://), where a web worker cannot start and the index cannot be
// fetched. The index comes as a script (search_index.js, written by the hook from the
// plugin's JSON) and lunr.js as another; the index is built here, on the search page only.
(function () {
  var shown = document.getElementById("mkdocs-search-results");
  var box = document.getElementById("mkdocs-search-query");
  if (!shown || !box) {
    return;                       // a page without results to show searches nothing
  }
  var folder = base_url.replace(/\/$/, "") + "/search/";

  function loadScript(name, then) {
    var script = document.createElement("script");
    script.src = folder + name;
    script.onload = then;
    document.head.appendChild(script);
  }

  function escapeHtml(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;");
  }

  function termOf(location) {
    var query = location.search.substring(1).split("&");
    for (var i = 0; i < query.length; i++) {
      var pair = query[i].split("=");
      if (pair[0] === "q" && pair.length > 1) {
        return decodeURIComponent(pair[1].replace(/\+/g, "%20"));
      }
    }
    return "";
  }

  function start() {
    var data = mkdocs_search_index;
    var byLocation = {};
    if (data.config && data.config.separator) {
      lunr.tokenizer.separator = new RegExp(data.config.separator);
    }
    var index = lunr(function () {
      this.ref("location");
      this.field("title", {boost: 10});
      this.field("text");
      data.docs.forEach(function (doc) {
        byLocation[doc.location] = doc;
        this.add(doc);
      }, this);
    });
    var shortest = (data.config && data.config.min_search_length) || 3;

    function show() {
      var query = box.value.trim();
      var found = [];
      if (query.length >= shortest) {
        try {
          found = index.search(query);
        } catch (error) {          // a query lunr cannot parse ("title:"): say nothing found
          found = [];
        }
      }
      var html = found.map(function (hit) {
        var doc = byLocation[hit.ref];
        var link = base_url.replace(/\/$/, "") + "/" + doc.location;
        return '<article><h3><a href="' + escapeHtml(link) + '">' + escapeHtml(doc.title) +
          "</a></h3><p>" + escapeHtml(doc.text.substring(0, 200)) + "</p></article>";
      });
      shown.innerHTML = html.length ? html.join("")
        : "<p>" + escapeHtml(shown.getAttribute("data-no-results-text") || "No results found") + "</p>";
    }

    box.value = termOf(window.location);
    box.addEventListener("input", show);
    show();
  }

  loadScript("lunr.js", function () { loadScript("search_index.js", start); });
})();

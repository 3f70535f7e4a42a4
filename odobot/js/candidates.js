// Every visible element with this tag: the pool an event's element is re-located in.
([tag, keep]) => Array.from(document.querySelectorAll(tag)).filter(visible).map((el) => info(el, keep))

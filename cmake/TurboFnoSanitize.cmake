# -DTURBOFNO_SANITIZE=ON: AddressSanitizer + UndefinedBehaviorSanitizer on all host code.
if(TURBOFNO_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
